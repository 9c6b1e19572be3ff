import type { ExecutionSource } from '@cronsvc/contracts';
import { newId } from '../ids/ids.js';
import { Prisma } from '../db/client.js';
import { storedSize } from '../db/stored-bytes.js';
import { currentRequestId } from '../logging/log-context.js';
import type { Deps } from '../deps/deps.js';
import type { ExecutionEnqueue } from '../queues/queues.js';

export interface NewExecution {
  workspaceId: string;
  jobId: string;
  jobName: string;
  source: ExecutionSource;
  scheduledFor: Date;
  replayOfId?: string;
  /** A replay of a triggered run starts again from the same inbound request. */
  triggerInput?: Prisma.JsonValue | null;
}

/** The unique key of a schedule fire: with its unique index, each (job, scheduled_for) fires once. */
export function fireKey(jobId: string, scheduledFor: Date): string {
  return `${jobId}@${scheduledFor.toISOString()}`;
}

export function executionRow(input: NewExecution): Prisma.ExecutionCreateManyInput {
  return {
    id: newId('exe'),
    workspaceId: input.workspaceId,
    jobId: input.jobId,
    jobName: input.jobName,
    status: 'queued',
    source: input.source,
    scheduledFor: input.scheduledFor,
    fireKey: input.source === 'schedule' ? fireKey(input.jobId, input.scheduledFor) : null,
    nextAttemptAt: input.scheduledFor,
    replayOfId: input.replayOfId ?? null,
    triggerInput: input.triggerInput ?? Prisma.DbNull,
    storedBytes: storedSize(input.triggerInput),
    requestId: currentRequestId() ?? null,
  };
}

export function firstAttempt(row: { id: string; scheduledFor: Date | string; workspaceId?: string }): ExecutionEnqueue {
  return { executionId: row.id, attempt: 1, runAt: new Date(row.scheduledFor), workspaceId: row.workspaceId };
}

/**
 * Hands executions already committed to Postgres to the queue. A failure here loses
 * nothing: the scheduler's reconciler queues every overdue execution Redis does not hold.
 */
export async function enqueueCommitted(deps: Pick<Deps, 'queues' | 'logger'>, items: ExecutionEnqueue[]): Promise<void> {
  try {
    await deps.queues.enqueueExecutions(items);
  } catch (error) {
    deps.logger.warn('queueing failed; the reconciler will queue these executions', {
      executionIds: items.map((i) => i.executionId),
      error: (error as Error).message,
    });
  }
}
