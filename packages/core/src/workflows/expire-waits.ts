import { inTransaction } from '../db/client.js';
import { enqueueCommitted } from '../executions/create-executions.js';
import type { Deps } from '../deps/deps.js';

// Due waits, oldest first, locked so scheduler replicas split them; the current step of each
// gets its timeout outcome and the execution is queued, all in one statement. A manual park of
// a step-driven run (no waiting step) is queued too: its turn finds the run's deadline passed.
const EXPIRE_SQL = `
  WITH due AS (
    SELECT id, step_index FROM executions
     WHERE status = 'waiting' AND waiting_expires_at <= $1
     ORDER BY waiting_expires_at
     LIMIT $2
       FOR UPDATE SKIP LOCKED
  ), timed_out AS (
    UPDATE step_executions AS s SET decision = CASE WHEN s.type = 'approval' THEN 'expired' ELSE 'timed_out' END, decided_at = $1, updated_at = $1
      FROM due
     WHERE s.execution_id = due.id AND s.step_index = due.step_index AND s.status = 'waiting' AND s.decision IS NULL
  )
  UPDATE executions AS e SET status = 'queued', waiting_reason = NULL, waiting_payload = NULL, waiting_expires_at = NULL,
         next_attempt_at = $1, updated_at = $1
    FROM due
   WHERE e.id = due.id
  RETURNING e.id, e.attempt_count, e.workspace_id`;

/**
 * The wait timers (docs/adr/010-step-driven-executions.md): every wait and every manual park of
 * a step-driven run whose waiting_expires_at has come is queued for the turn that applies its
 * on_timeout (or WORKFLOW_TIMEOUT). Timers live in Postgres only, so a restart or a Redis flush
 * loses none. Returns how many were queued.
 */
export async function expireWaits(deps: Deps, options: { batchSize?: number } = {}): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  let total = 0;
  for (;;) {
    const now = deps.clock.now();
    const rows = await inTransaction(deps.pool, async (client) => (await client.query<{ id: string; attempt_count: number; workspace_id: string }>({ name: 'expire-waits', text: EXPIRE_SQL, values: [now, batchSize] })).rows);
    await enqueueCommitted(deps, rows.map((r) => ({ executionId: r.id, attempt: r.attempt_count + 1, runAt: now, workspaceId: r.workspace_id })));
    total += rows.length;
    if (rows.length < batchSize) return total;
  }
}
