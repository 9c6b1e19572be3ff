import type { ClaimedExecution } from '../executions/claim-attempt.js';
import type { RunnerDeps } from './runner.js';

/** Queued executions of a capped job that can take the slot this one just gave back. */
export async function wakeWaitingSiblings(deps: RunnerDeps, exe: ClaimedExecution): Promise<void> {
  const waiting = await deps.db.execution.findMany({
    where: { jobId: exe.jobId, finishedAt: null, status: 'queued', nextAttemptAt: { lte: deps.clock.now() } },
    orderBy: { nextAttemptAt: 'asc' },
    take: exe.maxConcurrentExecutions,
    select: { id: true, attemptCount: true },
  });
  await deps.queues.wakeExecutions(waiting.map((w) => ({ executionId: w.id, attempt: w.attemptCount + 1 })));
}

/**
 * What follows a recorded turn (the next attempt's queue job, wake-ups of held-back siblings), best
 * effort: the outcome is committed, the reconciler queues overdue retries from Postgres, and
 * held-back siblings poll for a slot.
 */
export async function afterCommit(deps: RunnerDeps, executionId: string, steps: ((() => Promise<unknown>) | null)[]): Promise<void> {
  for (const step of steps) {
    if (!step) continue;
    try {
      await step();
    } catch (error) {
      deps.logger.warn('queueing after an attempt failed; reconciliation will catch up', { executionId, error: (error as Error).message });
    }
  }
}
