import type { Db } from '../db/client.js';

/**
 * How many executions a workspace (or one of its jobs) has, optionally in one status, read from
 * the counters the executions triggers keep (migration 20261123000000_execution_counts): one
 * index lookup whatever the table's size, where count(*) reads every matching row.
 */
export async function countExecutions(db: Db, filter: { workspaceId: string; jobId?: string; status?: string }): Promise<number> {
  const { _sum } = await db.executionCount.aggregate({
    where: { workspaceId: filter.workspaceId, jobId: filter.jobId ?? '', ...(filter.status ? { status: filter.status } : {}) },
    _sum: { n: true },
  });
  return Number(_sum.n ?? 0);
}

/**
 * Deletes the counter rows of deleted jobs. A job's delete takes its executions with it and
 * leaves its counters at 0; sweeping them here, rather than in the trigger, keeps a job's
 * counter rows in place while its executions come and go.
 */
export async function sweepExecutionCounts(db: Db): Promise<number> {
  return db.$executeRaw`
    DELETE FROM execution_counts c
     WHERE c.n = 0 AND c.job_id <> '' AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = c.job_id)`;
}
