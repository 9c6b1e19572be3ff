import type { Actor } from '../access/actor.js';
import { writeAudit } from '../access/audit.js';
import { Prisma, type ExecutionRow } from '../db/client.js';
import { AppError } from '../errors/app-error.js';
import type { Deps } from '../deps/deps.js';
import { settleWait } from './settle-wait.js';
import { enqueueCommitted } from './create-executions.js';

/**
 * POST /v1/executions/:id/resume (docs/EXECUTIONS.md): a manually parked execution is queued again
 * and goes on with its next attempt or step; the attempts it made are kept. A run waiting at a
 * wait_for_webhook step completes that step with a null payload; an approval wait is decided
 * only through its approve and reject URLs.
 */
export async function resumeExecution(
  deps: Pick<Deps, 'db' | 'pool' | 'queues' | 'clock' | 'logger'>, workspaceId: string, id: string, actor?: Actor,
): Promise<ExecutionRow> {
  const now = deps.clock.now();
  const event = { action: 'execution.resumed', targetType: 'execution', targetId: id };
  const { count } = await deps.db.$transaction(async (tx) => {
    const resumed = await tx.execution.updateMany({
      where: { id, workspaceId, status: 'waiting', waitingReason: 'manual' },
      data: { status: 'queued', waitingReason: null, waitingPayload: Prisma.DbNull, waitingExpiresAt: null, nextAttemptAt: now },
    });
    if (resumed.count > 0) await writeAudit(tx, actor, event);
    return resumed;
  });
  const audit = actor && { action: event.action, actor };
  const webhookWait = count === 0 && (await settleWait(deps, { executionId: id, workspaceId }, { type: 'wait_for_webhook', decision: 'resumed', input: null }, audit));
  const execution = await deps.db.execution.findFirst({ where: { id, workspaceId } });
  if (!execution) throw AppError.notFound('execution');
  if (webhookWait) return execution;
  if (count === 0) {
    if (execution.waitingReason === 'approval') throw AppError.invalidState('execution waits for an approval decision: use its approve_url or reject_url');
    if (execution.status === 'waiting') throw AppError.invalidState(`execution waits for ${execution.waitingReason}; it resumes through that, not manually`);
    throw AppError.invalidState(`execution is ${execution.status}; only a waiting execution can be resumed`);
  }
  await enqueueCommitted(deps, [{ executionId: id, attempt: execution.attemptCount + 1, runAt: now, workspaceId }]);
  return execution;
}
