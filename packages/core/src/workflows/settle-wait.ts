import { SqlBuilder } from '../db/client.js';
import { enqueueCommitted } from '../executions/create-executions.js';
import type { Deps } from '../runtime/deps.js';

export type WaitKey = { tokenHash: string } | { executionId: string; workspaceId: string };

export interface SettledWait {
  executionId: string;
}

/**
 * Gives a waiting step its outcome and queues its execution, in one statement: a resume
 * (`resumed`, with the posted payload), an approval decision (`approved` / `rejected`, with the
 * posted body), or the manual resume of a webhook wait (`resumed`, no payload). The execution row
 * is locked first, as every writer of a run does (docs/adr/010-step-driven-executions.md), and
 * only the current step of a waiting execution with no outcome yet matches: of a resume, a
 * decision and a timer racing each other exactly one wins; the others get null.
 */
export async function settleWait(
  deps: Pick<Deps, 'pool' | 'clock' | 'queues' | 'logger'>,
  key: WaitKey,
  wait: { type: 'wait_for_webhook' | 'approval'; decision: 'resumed' | 'approved' | 'rejected'; input: unknown },
): Promise<SettledWait | null> {
  const now = deps.clock.now();
  const b = new SqlBuilder();
  const where = 'tokenHash' in key
    ? `s.token_hash = ${b.param(key.tokenHash)}`
    : `e.id = ${b.param(key.executionId)} AND e.workspace_id = ${b.param(key.workspaceId)}`;
  const at = b.param(now);
  const text = `
    WITH target AS (
      SELECT e.id AS execution_id, s.id AS step_row
        FROM executions AS e
        JOIN step_executions AS s ON s.execution_id = e.id AND s.step_index = e.step_index
       WHERE ${where} AND s.type = ${b.param(wait.type)}
         FOR UPDATE OF e
    ), moved AS (
      UPDATE executions AS e SET status = 'queued', waiting_reason = NULL, waiting_payload = NULL, waiting_expires_at = NULL,
             next_attempt_at = ${at}, updated_at = ${at}
        FROM target
       WHERE e.id = target.execution_id AND e.status = 'waiting' AND e.waiting_reason = ${b.param(wait.type === 'approval' ? 'approval' : 'webhook')}
         AND EXISTS (SELECT 1 FROM step_executions AS s WHERE s.id = target.step_row AND s.status = 'waiting' AND s.decision IS NULL)
      RETURNING e.id, e.attempt_count, target.step_row
    ), decided AS (
      UPDATE step_executions AS s SET decision = ${b.param(wait.decision)}, decided_at = ${at}, input = ${b.param(JSON.stringify(wait.input ?? null))}::jsonb,
             updated_at = ${at}
        FROM moved
       WHERE s.id = moved.step_row AND s.status = 'waiting' AND s.decision IS NULL
      RETURNING s.id
    )
    SELECT moved.id, moved.attempt_count FROM moved JOIN decided ON decided.id = moved.step_row`;
  const name = 'tokenHash' in key ? 'settle-wait-by-token' : 'settle-wait-by-execution';
  const { rows } = await deps.pool.query<{ id: string; attempt_count: number }>({ name, text, values: b.values });
  const row = rows[0];
  if (!row) return null;
  await enqueueCommitted(deps, [{ executionId: row.id, attempt: row.attempt_count + 1, runAt: now }]);
  return { executionId: row.id };
}
