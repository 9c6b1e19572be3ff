import type { Actor } from '../access/actor.js';
import { newId } from '../ids/ids.js';
import type { SqlPool } from '../db/client.js';
import { columnArrays, unnestFrom, type Column } from '../db/columns.js';
import { GroupCommit } from '../db/group-commit.js';
import { perPool } from '../db/per-pool.js';
import { enqueueCommitted } from './create-executions.js';
import type { Deps } from '../deps/deps.js';

export type WaitKey = { tokenHash: string } | { executionId: string; workspaceId: string };

export interface SettledWait {
  executionId: string;
}

interface Settlement {
  tokenHash: string | null;
  executionId: string | null;
  workspaceId: string | null;
  type: 'wait_for_webhook' | 'approval';
  decision: 'resumed' | 'approved' | 'rejected';
  /** The step's input: the posted payload or decision body (JSON), null for none. */
  input: unknown;
  at: Date;
  /** The audit event of the settlement, written by the same statement; null for none (a timer). */
  audit: WaitAudit | null;
}

/** Who settles a wait and what the audit log calls it; the workspace is the execution's. */
export interface WaitAudit {
  action: string;
  actor: Pick<Actor, 'kind' | 'tokenId' | 'name' | 'requestId'>;
}

const SETTLE_COLUMNS: readonly Column<Settlement>[] = [
  { name: 'token_hash', type: 'text', value: (s) => s.tokenHash },
  { name: 'execution_id', type: 'text', value: (s) => s.executionId },
  { name: 'workspace_id', type: 'text', value: (s) => s.workspaceId },
  { name: 'type', type: 'text', value: (s) => s.type },
  { name: 'decision', type: 'text', value: (s) => s.decision },
  { name: 'input', type: 'jsonb', value: (s) => s.input },
  { name: 'at', type: 'timestamptz', value: (s) => s.at },
  { name: 'audit_id', type: 'text', value: (s) => (s.audit ? newId('aud') : null) },
  { name: 'audit_action', type: 'text', value: (s) => s.audit?.action ?? null },
  { name: 'audit_actor_type', type: 'text', value: (s) => s.audit?.actor.kind ?? null },
  { name: 'audit_actor_token_id', type: 'text', value: (s) => s.audit?.actor.tokenId ?? null },
  { name: 'audit_actor_name', type: 'text', value: (s) => s.audit?.actor.name ?? null },
  { name: 'audit_request_id', type: 'text', value: (s) => s.audit?.actor.requestId ?? null },
];

interface SettledRow {
  n: number;
  id: string;
  attempt_count: number;
}

// A batch of settlements in one statement: each finds the current step of its execution by token
// (through the token's unique index) or by execution id, the execution row is locked first (as
// every writer of a run does), and only a waiting execution whose step has no outcome yet, and
// whose wait has not run out (on the database's clock, whether or not the scheduler's timer has
// expired it yet), moves to queued, together with its step's outcome. Two items of one batch for the same execution update
// it once: one of them gets the row, the other gets nothing, as it would have alone.
const SETTLE_SQL = `
  WITH input AS (
    SELECT * FROM ${unnestFrom(SETTLE_COLUMNS, 'i', { ordinality: 'n' })}
  ), found AS (
    SELECT i.*, s.id AS step_row, s.execution_id AS exe FROM input AS i JOIN step_executions AS s ON s.token_hash = i.token_hash
    UNION ALL
    SELECT i.*, s.id, s.execution_id FROM input AS i
      JOIN executions AS x ON x.id = i.execution_id AND x.workspace_id = i.workspace_id
      JOIN step_executions AS s ON s.execution_id = x.id AND s.step_index = x.step_index
     WHERE i.token_hash IS NULL
  ), target AS (
    SELECT f.n, e.id AS execution_id, f.step_row, f.type, f.decision, f.input, f.at
      FROM found AS f
      JOIN executions AS e ON e.id = f.exe
      JOIN step_executions AS s ON s.id = f.step_row AND s.step_index = e.step_index AND s.type = f.type
       FOR UPDATE OF e
  ), moved AS (
    UPDATE executions AS e SET status = 'queued', waiting_reason = NULL, waiting_payload = NULL, waiting_expires_at = NULL,
           next_attempt_at = t.at, updated_at = t.at
      FROM target AS t
     WHERE e.id = t.execution_id AND e.status = 'waiting'
       AND e.waiting_reason = CASE t.type WHEN 'approval' THEN 'approval' ELSE 'webhook' END
       AND EXISTS (SELECT 1 FROM step_executions AS s WHERE s.id = t.step_row AND s.status = 'waiting' AND s.decision IS NULL
                     AND (s.expires_at IS NULL OR s.expires_at > now()))
    RETURNING e.id, e.workspace_id, e.attempt_count, t.n, t.step_row, t.decision, t.input, t.at
  ), decided AS (
    UPDATE step_executions AS s SET decision = m.decision, decided_at = m.at, input = m.input, updated_at = m.at
      FROM moved AS m
     WHERE s.id = m.step_row
    RETURNING s.id
  ), audit AS (
    INSERT INTO audit_events (id, workspace_id, action, target_type, target_id, actor_type, actor_token_id, actor_name, request_id, created_at)
    SELECT i.audit_id, m.workspace_id, i.audit_action, 'execution', m.id, i.audit_actor_type, i.audit_actor_token_id, i.audit_actor_name, i.audit_request_id, m.at
      FROM moved AS m JOIN decided AS d ON d.id = m.step_row JOIN input AS i ON i.n = m.n
     WHERE i.audit_id IS NOT NULL
  )
  SELECT m.n::int AS n, m.id, m.attempt_count FROM moved AS m JOIN decided AS d ON d.id = m.step_row`;

/**
 * Resumes and decisions arriving together share one statement (one batcher per pool): they
 * change the status of executions of the same workspaces, and one statement takes the workspace's
 * counter rows once for all of them instead of once each.
 */
const settlements = perPool(
  (pool: SqlPool) =>
    new GroupCommit<Settlement, SettledRow | null>(
      async (items) => {
        const { rows } = await pool.query<SettledRow>({
          name: 'settle-waits',
          text: SETTLE_SQL,
          values: columnArrays(SETTLE_COLUMNS, items),
        });
        const byOrdinal = new Map(rows.map((r) => [r.n, r]));
        return items.map((_, i) => byOrdinal.get(i + 1) ?? null);
      },
      { maxBatch: 500, maxInFlight: 2 },
    ),
);

/**
 * Gives a waiting step its outcome and queues its execution: a resume (`resumed`, with the
 * posted payload), an approval decision (`approved` / `rejected`, with the posted body), or the
 * manual resume of a webhook wait (`resumed`, no payload). Of a resume, a decision and a timer
 * racing each other exactly one wins (docs/adr/010-step-driven-executions.md); the others get null.
 */
export async function settleWait(
  deps: Pick<Deps, 'pool' | 'clock' | 'queues' | 'logger'>,
  key: WaitKey,
  wait: { type: 'wait_for_webhook' | 'approval'; decision: 'resumed' | 'approved' | 'rejected'; input: unknown },
  audit?: WaitAudit,
): Promise<SettledWait | null> {
  const now = deps.clock.now();
  const byToken = 'tokenHash' in key;
  const row = await settlements(deps.pool).add({
    tokenHash: byToken ? key.tokenHash : null,
    executionId: byToken ? null : key.executionId,
    workspaceId: byToken ? null : key.workspaceId,
    type: wait.type,
    decision: wait.decision,
    input: wait.input ?? null,
    at: now,
    audit: audit ?? null,
  });
  if (!row) return null;
  await enqueueCommitted(deps, [{ executionId: row.id, attempt: row.attempt_count + 1, runAt: now }]);
  return { executionId: row.id };
}
