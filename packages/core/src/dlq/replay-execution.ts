import type { Actor } from '../access/actor.js';
import { writeAudit } from '../access/audit.js';
import type { ExecutionSource } from '@cronsvc/contracts';
import type { ExecutionRow, Prisma } from '../db/client.js';
import { AppError } from '../errors/app-error.js';
import { enqueueCommitted, executionRow, firstAttempt } from '../executions/create-executions.js';
import { findJob } from '../jobs/job-store.js';
import { withinStoredBytes } from '../db/stored-bytes.js';
import type { Deps } from '../deps/deps.js';
import { deadLettered, notInDlq } from './dead-lettered.js';

/**
 * `replay`: POST /v1/executions/:id/replay, any execution of the workspace, original unchanged
 * (docs/EXECUTIONS.md). An execution that is still queued, running or waiting may be replayed too: the
 * replay is just another execution of the same job, and a DLQ item replayed this way stays in
 * the DLQ. `dlq_replay`: POST /v1/dlq/:id/replay and the batch, only items in the DLQ, which
 * they leave.
 */
export type ReplaySource = Extract<ExecutionSource, 'replay' | 'dlq_replay'>;

/**
 * Commits the new execution, scheduled now, without queueing it: the batch queues all of its
 * replays at once. Nothing of the job is copied, because the executor reads the job's current
 * definition at attempt time, which is what a replay should run; its state does not matter
 * either, as with run-now (a paused or completed job can be replayed).
 */
export async function commitReplay(deps: Pick<Deps, 'db' | 'clock' | 'config'>, workspaceId: string, id: string, source: ReplaySource, actor?: Actor): Promise<ExecutionRow> {
  // The copy of a trigger input counts like the original: a workspace at its limit of stored bytes cannot replay a triggered run.
  return withinStoredBytes(deps.config.maxStoredBytesPerWorkspace, () => deps.db.$transaction(async (tx) => {
    const original = source === 'dlq_replay' ? await takeFromDlq(tx, workspaceId, id) : await tx.execution.findFirst({ where: { id, workspaceId } });
    if (!original) throw source === 'dlq_replay' ? notInDlq() : AppError.notFound('execution');
    const job = await findJob(tx, workspaceId, original.jobId);
    await writeAudit(tx, actor, { action: source === 'dlq_replay' ? 'execution.dlq_replayed' : 'execution.replayed', targetType: 'execution', targetId: original.id });
    return tx.execution.create({
      data: executionRow({
        workspaceId,
        jobId: job.id,
        jobName: job.name,
        source,
        scheduledFor: deps.clock.now(),
        // The API promises replay_of_id only for dlq_replay; a plain replay sets it too, so the lineage
        // of every replay is visible. It points at the execution replayed, which may itself be a replay.
        replayOfId: original.id,
        // A step-driven replay starts from step 0 with the trigger input of the run replayed.
        triggerInput: original.triggerInput,
      }),
    });
  }));
}

/** Replays one execution and hands it to the executor, as run-now does. */
export async function replayExecution(deps: Deps, workspaceId: string, id: string, source: ReplaySource, actor?: Actor): Promise<ExecutionRow> {
  const replay = await commitReplay(deps, workspaceId, id, source, actor);
  await enqueueCommitted(deps, [firstAttempt(replay)]);
  return replay;
}

/**
 * Clears dead_lettered_at only if it is still set, in one statement: of two replays of the same
 * item racing, exactly one takes it and the other finds it gone (404), so it is replayed once.
 */
async function takeFromDlq(tx: Prisma.TransactionClient, workspaceId: string, id: string): Promise<ExecutionRow | undefined> {
  const [taken] = await tx.execution.updateManyAndReturn({ where: { id, workspaceId, ...deadLettered }, data: { deadLetteredAt: null } });
  return taken;
}
