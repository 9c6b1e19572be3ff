import type { DlqStats } from '@cronsvc/contracts';
import { Prisma } from '../db/client.js';
import type { Deps } from '../deps/deps.js';

/**
 * GET /v1/dlq/stats (docs/EXECUTIONS.md), counted by Postgres. The three queries read one snapshot, so `total`
 * always equals the sum of `by_job` and of `by_error_class` even while executions fail or leave.
 */
export async function dlqStats(deps: Pick<Deps, 'db'>, workspaceId: string): Promise<DlqStats> {
  const inDlq = Prisma.sql`e.workspace_id = ${workspaceId} AND e.dead_lettered_at IS NOT NULL`;
  const [[summary], byJob, byClass] = await deps.db.$transaction(
    [
      deps.db.$queryRaw<{ total: number; oldest: Date | null }[]>`
        SELECT count(*)::int AS total, min(e.dead_lettered_at) AS oldest FROM executions e WHERE ${inDlq}`,
      // Grouped by job, named by the job's current name: executions keep the name they ran under,
      // and a renamed job must still be one entry.
      deps.db.$queryRaw<{ job_id: string; job_name: string; count: number }[]>`
        SELECT e.job_id, j.name AS job_name, count(*)::int AS count
          FROM executions e JOIN jobs j ON j.id = e.job_id
         WHERE ${inDlq}
         GROUP BY e.job_id, j.name
         ORDER BY count(*) DESC, j.name, e.job_id`,
      // Every failure has an error class; UNKNOWN only keeps a stray null from becoming a "null" key.
      deps.db.$queryRaw<{ error_class: string; count: number }[]>`
        SELECT COALESCE(e.error_class, 'UNKNOWN') AS error_class, count(*)::int AS count
          FROM executions e
         WHERE ${inDlq}
         GROUP BY 1
         ORDER BY 1`,
    ],
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead },
  );
  return {
    total: summary.total,
    oldest_dead_lettered_at: summary.oldest ? summary.oldest.toISOString() : null,
    by_job: byJob.map((row) => ({ job_id: row.job_id, job_name: row.job_name, count: row.count })),
    by_error_class: Object.fromEntries(byClass.map((row) => [row.error_class, row.count])),
  };
}
