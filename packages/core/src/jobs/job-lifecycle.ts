import type { Actor } from '../access/actor.js';
import { writeAudit } from '../access/audit.js';
import type { JobRow } from '../db/client.js';
import { AppError } from '../errors/app-error.js';
import type { Deps } from '../deps/deps.js';
import { plannedNextRun } from './job-plan.js';
import { cancelPendingFires, lockJob } from './job-store.js';

/** active -> paused: the job stops firing, including fires already queued ahead of their time. */
export async function pauseJob(deps: Deps, workspaceId: string, jobId: string, actor?: Actor): Promise<JobRow> {
  const now = deps.clock.now();
  return deps.db.$transaction(async (tx) => {
    const job = await lockJob(tx, workspaceId, jobId);
    if (job.state !== 'active') throw AppError.invalidState(`job is ${job.state}; only an active job can be paused`);
    await cancelPendingFires(tx, job.id, now);
    await writeAudit(tx, actor, { action: 'job.paused', targetType: 'job', targetId: job.id, changedFields: ['state'] });
    return tx.job.update({ where: { id: job.id }, data: { state: 'paused', nextRunAt: null } });
  });
}

/** paused -> active: next_run_at is recomputed from now, and a recurring grid restarts at now. */
export async function resumeJob(deps: Deps, workspaceId: string, jobId: string, actor?: Actor): Promise<JobRow> {
  const now = deps.clock.now();
  return deps.db.$transaction(async (tx) => {
    const job = await lockJob(tx, workspaceId, jobId);
    if (job.state !== 'paused') throw AppError.invalidState(`job is ${job.state}; only a paused job can be resumed`);
    const resumed = { ...job, state: 'active', scheduleAnchor: now };
    await writeAudit(tx, actor, { action: 'job.resumed', targetType: 'job', targetId: job.id, changedFields: ['state'] });
    return tx.job.update({
      where: { id: job.id },
      data: { state: 'active', scheduleAnchor: now, nextRunAt: plannedNextRun(resumed, now) },
    });
  });
}

/** Deletes the job; its executions and attempts go with it (foreign keys cascade). */
export async function deleteJob(deps: Deps, workspaceId: string, jobId: string, actor?: Actor): Promise<void> {
  if (!actor) {
    const { count } = await deps.db.job.deleteMany({ where: { id: jobId, workspaceId } });
    if (count === 0) throw AppError.notFound('job');
    return;
  }
  await deps.db.$transaction(async (tx) => {
    const { count } = await tx.job.deleteMany({ where: { id: jobId, workspaceId } });
    if (count === 0) throw AppError.notFound('job');
    await writeAudit(tx, actor, { action: 'job.deleted', targetType: 'job', targetId: jobId });
  });
}
