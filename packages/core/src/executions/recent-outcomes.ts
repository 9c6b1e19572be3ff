import type { ExecutionStatus } from '@cronsvc/contracts';
import type { Deps } from '../deps/deps.js';

export interface Outcome {
  id: string;
  status: ExecutionStatus;
  scheduledFor: Date;
}

// One index range scan per job (executions by job_id, scheduled_for), newest first.
const RECENT_SQL = `
  SELECT j.id AS job_id, e.id, e.status, e.scheduled_for
  FROM unnest($1::text[]) AS j(id)
  CROSS JOIN LATERAL (
    SELECT id, status, scheduled_for FROM executions
    WHERE job_id = j.id AND workspace_id = $2
    ORDER BY scheduled_for DESC, id DESC LIMIT $3
  ) e
  ORDER BY e.scheduled_for, e.id`;

/**
 * The last `perJob` executions of each of `jobIds` (by scheduled_for, oldest first), for a row of
 * status at a glance. Jobs of another workspace, or with no execution, map to an empty list.
 */
export async function recentOutcomes(deps: Pick<Deps, 'pool'>, workspaceId: string, jobIds: string[], perJob: number): Promise<Map<string, Outcome[]>> {
  const byJob = new Map<string, Outcome[]>(jobIds.map((id) => [id, []]));
  if (jobIds.length === 0) return byJob;
  const { rows } = await deps.pool.query<{ job_id: string; id: string; status: ExecutionStatus; scheduled_for: Date }>(RECENT_SQL, [jobIds, workspaceId, perJob]);
  for (const row of rows) byJob.get(row.job_id)?.push({ id: row.id, status: row.status, scheduledFor: row.scheduled_for });
  return byJob;
}
