import { inTransaction, type SqlPool } from '../db/client.js';
import type { ExecutionEnqueue } from '../queues/queues.js';

/** What the caller takes over from executors found dead; empty when none was. */
export interface Reclaimed {
  /** The dead executors (workers.id) this call took over. */
  workers: string[];
  /** Running executions they had claimed: their leases are ended, so they can be claimed now. */
  running: ExecutionEnqueue[];
  /**
   * Executions due within the window and not claimed by anyone: a dead executor may have held
   * them (their queue jobs are done), so nothing else would start them before the reconciler.
   */
  due: ExecutionEnqueue[];
}

interface Row {
  id: string;
  attempt_count: number;
  next_attempt_at: Date;
  workspace_id: string;
}

const toEnqueue = (r: Row): ExecutionEnqueue => ({ executionId: r.id, attempt: r.attempt_count + 1, runAt: r.next_attempt_at, workspaceId: r.workspace_id });

// An executor other than the caller ($2) silent for $1 ms that nobody has taken over since its
// last beat. The caller's own row can look quiet too (its beats failed while the database was
// away), but its attempts in flight are alive.
const DEAD = `kind = 'executor' AND id <> $2 AND heartbeat_at < now() - $1 * interval '1 millisecond'
              AND (reclaimed_at IS NULL OR reclaimed_at < heartbeat_at)`;

const ANY_DEAD_SQL = `SELECT EXISTS (SELECT 1 FROM workers WHERE ${DEAD}) AS any`;

// One caller takes over each dead executor (SKIP LOCKED, and reclaimed_at set in the same
// transaction), and again only after it beat again and went quiet again. A row whose heartbeat
// is -infinity was forgotten by its supervisor, which saw the process exit: once taken over it
// is dropped, since it will never beat again.
const DEAD_SQL = `
  UPDATE workers SET reclaimed_at = now()
   WHERE id IN (SELECT id FROM workers WHERE ${DEAD} FOR UPDATE SKIP LOCKED)
  RETURNING id`;

// Ends the leases on the database's clock (ADR 006), a millisecond in the past so the next claim's
// now() is past it. The claim token is untouched: the dead executor, if it was only stalled, can
// neither renew nor record once another claim has been made.
const END_LEASES_SQL = `
  UPDATE executions SET locked_until = now() - interval '1 millisecond'
   WHERE finished_at IS NULL AND status = 'running' AND locked_until IS NOT NULL AND claimed_by = ANY($1::text[])
  RETURNING id, attempt_count, next_attempt_at, workspace_id`;

// Read through the reconciler's index of unfinished executions, soonest first.
const DUE_SQL = `
  SELECT id, attempt_count, next_attempt_at, workspace_id FROM executions
   WHERE finished_at IS NULL AND status IN ('queued', 'running') AND locked_until IS NULL
     AND next_attempt_at <= now() + $1 * interval '1 millisecond'
   ORDER BY next_attempt_at, id
   LIMIT $2`;

/**
 * Takes over, for the executor `workerId`, the work of other executors whose heartbeat has been
 * silent for `deadAfterMs` on the database's clock (docs/adr/018-liveness-based-reclaim.md): ends
 * the leases of the executions they were running, and lists those due within `dueWithinMs` that
 * no one has claimed (at most `dueLimit`), for the caller to run. Starting an execution twice is
 * safe: claims are fenced by the claim token, and a resend carries the same execution id and
 * webhook-id.
 */
export async function reclaimExecutions(
  pool: SqlPool,
  options: { workerId: string; deadAfterMs: number; dueWithinMs: number; dueLimit: number },
): Promise<Reclaimed> {
  // Every executor asks twice a second, and nearly always nobody is dead: one read, no transaction.
  const { rows } = await pool.query<{ any: boolean }>({ name: 'dead-executors', text: ANY_DEAD_SQL, values: [options.deadAfterMs, options.workerId] });
  if (!rows[0].any) return { workers: [], running: [], due: [] };
  return inTransaction(pool, async (client) => {
    const dead = (await client.query<{ id: string }>(DEAD_SQL, [options.deadAfterMs, options.workerId])).rows.map((r) => r.id);
    if (dead.length === 0) return { workers: [], running: [], due: [] };
    const running = (await client.query<Row>(END_LEASES_SQL, [dead])).rows.map(toEnqueue);
    const due = (await client.query<Row>(DUE_SQL, [options.dueWithinMs, options.dueLimit])).rows.map(toEnqueue);
    await client.query(`DELETE FROM workers WHERE id = ANY($1::text[]) AND heartbeat_at = '-infinity'`, [dead]);
    return { workers: dead, running, due };
  });
}
