import { AppError } from '../errors/app-error.js';

/**
 * MAX_JOBS_PER_WORKSPACE. The check and the count live in the database, in the statement that
 * inserts jobs (triggers of the job_quota migration): a job of a workspace at its quota is not
 * inserted (no row comes back), and a statement that would take a workspace past it fails with
 * SQLSTATE CQ001. So a create costs no extra round trip, and concurrent creates cannot overshoot.
 * This module holds the service's side: the connection setting that carries the quota, and the
 * error a create answers.
 */

const QUOTA_SETTING = 'cronsvc.max_jobs_per_workspace';
const OVER_QUOTA = 'CQ001';

/** The `options` of a connection that holds its workspaces to `maxJobs` (see poolConfig). */
export function jobQuotaConnectionOption(maxJobs: number): string {
  return `-c ${QUOTA_SETTING}=${Math.floor(maxJobs)}`;
}

/** 409 limit_exceeded: the workspace already has its quota of jobs. */
export function jobQuotaExceeded(maxJobs: number): AppError {
  return new AppError('limit_exceeded', `this workspace has reached its limit of ${maxJobs} jobs (MAX_JOBS_PER_WORKSPACE); delete jobs to create others`);
}

/** Whether an insert failed because it would have taken a workspace past its quota (pg or Prisma error). */
export function isJobQuotaError(error: unknown): boolean {
  for (let e = error as Record<string, unknown> | undefined, depth = 0; e && depth < 6; depth++) {
    if (e.code === OVER_QUOTA || (e.meta as { code?: string } | undefined)?.code === OVER_QUOTA || e.originalCode === OVER_QUOTA) return true;
    if (typeof e.message === 'string' && /over its quota of \d+ jobs/.test(e.message)) return true;
    e = e.cause as Record<string, unknown> | undefined;
  }
  return false;
}
