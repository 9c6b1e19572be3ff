import type { Db } from '../db/client.js';
import type { RequestSpec, RetryPolicy } from '../jobs/job-schema.js';

export interface ClaimedExecution {
  id: string;
  workspaceId: string;
  jobId: string;
  jobName: string;
  jobKind: string;
  source: string;
  attemptCount: number;
  startedAt: Date;
  request: RequestSpec;
  retryPolicy: RetryPolicy;
}

export type ClaimResult =
  | { claimed: ClaimedExecution }
  /** Not yet: its next attempt is later, or another live worker holds it. */
  | { retryAt: Date }
  /** Nothing to do: finished, waiting, deleted, or already taken past this attempt. */
  | { skip: string };

interface ClaimRow {
  id: string;
  workspace_id: string;
  job_id: string;
  job_name: string;
  kind: string;
  source: string;
  attempt_count: number;
  started_at: Date;
  request: RequestSpec;
  retry_policy: RetryPolicy;
}

/**
 * Takes an execution for its next attempt in one statement: a queued one, or a running one
 * whose worker's lease ran out (that worker died). The lease makes every other worker wait.
 */
export async function claimAttempt(db: Db, executionId: string, now: Date, leaseMs: number): Promise<ClaimResult> {
  const leaseUntil = new Date(now.getTime() + leaseMs);
  const rows = await db.$queryRaw<ClaimRow[]>`
    WITH claimed AS (
      UPDATE executions
         SET status = 'running', locked_until = ${leaseUntil}, started_at = COALESCE(started_at, ${now}), updated_at = ${now}
       WHERE id = ${executionId}
         AND next_attempt_at <= ${now}
         AND (status = 'queued' OR (status = 'running' AND (locked_until IS NULL OR locked_until < ${now})))
       RETURNING id, workspace_id, job_id, job_name, source, attempt_count, started_at
    )
    SELECT c.*, j.kind, j.request, j.retry_policy FROM claimed c JOIN jobs j ON j.id = c.job_id`;
  const row = rows[0];
  if (row) {
    return {
      claimed: {
        id: row.id,
        workspaceId: row.workspace_id,
        jobId: row.job_id,
        jobName: row.job_name,
        jobKind: row.kind,
        source: row.source,
        attemptCount: row.attempt_count,
        startedAt: row.started_at,
        request: row.request,
        retryPolicy: row.retry_policy,
      },
    };
  }
  const current = await db.execution.findUnique({
    where: { id: executionId },
    select: { status: true, nextAttemptAt: true, lockedUntil: true },
  });
  if (!current) return { skip: 'execution no longer exists' };
  if (current.status !== 'queued' && current.status !== 'running') return { skip: `execution is ${current.status}` };
  if (current.nextAttemptAt > now) return { retryAt: current.nextAttemptAt };
  if (current.lockedUntil && current.lockedUntil >= now) return { retryAt: new Date(current.lockedUntil.getTime() + 1) };
  // It changed between the update and the read: look again shortly.
  return { retryAt: new Date(now.getTime() + 100) };
}

/** Keeps the lease alive while a long attempt runs, so nobody takes over a live worker's execution. */
export async function extendLease(db: Db, executionId: string, until: Date): Promise<void> {
  await db.execution.updateMany({ where: { id: executionId, status: 'running' }, data: { lockedUntil: until } });
}
