import type { Deps } from '../deps/deps.js';

/** Gaps recorded before `olderThan`: they go with the executions of their age (EXECUTION_RETENTION_DAYS). */
export async function pruneFireGaps(deps: Pick<Deps, 'pool'>, options: { olderThan: Date; batchSize?: number }): Promise<number> {
  const batchSize = options.batchSize ?? 1000;
  let total = 0;
  for (;;) {
    const { rowCount } = await deps.pool.query(
      `DELETE FROM fire_gaps WHERE ctid IN (SELECT ctid FROM fire_gaps WHERE created_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [options.olderThan.toISOString(), batchSize],
    );
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < batchSize) return total;
  }
}
