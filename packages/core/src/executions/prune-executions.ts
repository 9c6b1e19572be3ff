import type { Deps } from '../deps/deps.js';

const DAY_MS = 86_400_000;

/** Executions created before this are past retention (EXECUTION_RETENTION_DAYS). */
export function retentionCutoff(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * DAY_MS);
}

/**
 * Deletes finished executions created before `olderThan`; their attempts and deliveries go
 * with them by ON DELETE CASCADE, and a dead-lettered one leaves the DLQ with its row.
 * Returns how many executions were deleted.
 *
 * Only `succeeded` and `failed` ones are pruned: a queued, running or waiting execution
 * has been accepted and is still owed a run or a resume, however old, so retention must
 * never be what loses it.
 *
 * Small batches, each its own statement, keep row locks short so executors and the API are
 * never held up behind a long delete; SKIP LOCKED leaves rows that someone is updating
 * (a DLQ replay, another scheduler replica pruning) for the next run instead of waiting.
 */
export async function pruneExecutions(deps: Pick<Deps, 'pool'>, options: { olderThan: Date; batchSize?: number }): Promise<number> {
  const batchSize = options.batchSize ?? 1000;
  let total = 0;
  for (;;) {
    const { rowCount } = await deps.pool.query(
      `DELETE FROM executions WHERE id IN (
         SELECT id FROM executions
          WHERE created_at < $1::timestamptz AND status IN ('succeeded', 'failed')
          LIMIT $2
          FOR UPDATE SKIP LOCKED)`,
      [options.olderThan.toISOString(), batchSize],
    );
    const deleted = rowCount ?? 0;
    total += deleted;
    if (deleted < batchSize) return total;
  }
}
