import type { Deps } from '../deps/deps.js';
import type { ExecutionEnqueue } from '../queues/queues.js';

interface PendingRow {
  id: string;
  attempt_count: number;
  next_attempt_at: Date;
  workspace_id: string;
}

/**
 * Rebuilds the execution queue from Postgres, the record. It queues (idempotently, by
 * deterministic queue job id) every execution that should be in Redis by now: queued ones
 * and retries due before `dueBefore`, and running ones whose worker's lease expired (judged
 * on the database's clock, like every lease decision: see ADR 006).
 * At start-up `dueBefore` is far in the future, so everything pending is queued again.
 * Returns how many were handed to the queue. Plain SQL on the pool: the scheduler runs this at
 * start and every interval, and an idle scheduler should not load Prisma's query compiler
 * (docs/BENCHMARKS.md, "Idle memory").
 */
export async function reconcileQueue(deps: Deps, options: { dueBefore: Date; batchSize?: number }): Promise<number> {
  const batchSize = options.batchSize ?? 1000;
  let afterTime = new Date(0);
  let afterId = '';
  let total = 0;
  for (;;) {
    const { rows } = await deps.pool.query<PendingRow>(
      `SELECT id, attempt_count, next_attempt_at, workspace_id FROM executions
        WHERE finished_at IS NULL AND status IN ('queued', 'running')
          AND (next_attempt_at, id) > ($1::timestamptz, $2::text)
          AND ((next_attempt_at <= $3::timestamptz AND locked_until IS NULL) OR locked_until < now())
        ORDER BY next_attempt_at, id
        LIMIT $4`,
      [afterTime.toISOString(), afterId, options.dueBefore.toISOString(), batchSize],
    );
    if (rows.length === 0) return total;
    const items: ExecutionEnqueue[] = rows.map((r) => ({ executionId: r.id, attempt: r.attempt_count + 1, runAt: r.next_attempt_at, workspaceId: r.workspace_id }));
    await deps.queues.requeueExecutions(items);
    total += items.length;
    const last = rows[rows.length - 1];
    afterTime = last.next_attempt_at;
    afterId = last.id;
    if (rows.length < batchSize) return total;
  }
}
