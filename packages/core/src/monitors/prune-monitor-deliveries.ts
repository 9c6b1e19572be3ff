import type { Deps } from '../deps/deps.js';

/**
 * Deletes the finished deliveries of monitors (on_down, on_recovery) created before
 * `olderThan`, as the deliveries of executions go with their executions: the history is kept as
 * long as EXECUTION_RETENTION_DAYS. Batches found through the monitor_id index, each its own
 * short statement, skipping rows someone is updating. Returns how many were deleted.
 */
export async function pruneMonitorDeliveries(deps: Pick<Deps, 'pool'>, options: { olderThan: Date; batchSize?: number }): Promise<number> {
  const batchSize = options.batchSize ?? 1000;
  let total = 0;
  for (;;) {
    const { rowCount } = await deps.pool.query(
      `DELETE FROM deliveries WHERE id IN (
         SELECT id FROM deliveries
          WHERE monitor_id IS NOT NULL AND created_at < $1::timestamptz AND status IN ('sent', 'failed')
          LIMIT $2
          FOR UPDATE SKIP LOCKED)`,
      [options.olderThan.toISOString(), batchSize],
    );
    const deleted = rowCount ?? 0;
    total += deleted;
    if (deleted < batchSize) return total;
  }
}
