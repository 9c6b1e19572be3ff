import type { Db } from '../db/client.js';

/**
 * How many executions a workspace has, optionally in one status, read from the counters the
 * executions triggers keep (migration 20261123000000_execution_counts): one index lookup
 * whatever the table's size, where count(*) reads every matching row.
 */
export async function countExecutions(db: Db, filter: { workspaceId: string; status?: string }): Promise<number> {
  const { _sum } = await db.executionCount.aggregate({
    where: { workspaceId: filter.workspaceId, ...(filter.status ? { status: filter.status } : {}) },
    _sum: { n: true },
  });
  return Number(_sum.n ?? 0);
}
