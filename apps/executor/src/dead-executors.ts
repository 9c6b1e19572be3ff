import { reclaimExecutions, type Reclaimed, type Runtime, watchDeadWorkers } from '@cronsvc/core';

// How often an executor looks for executors whose heartbeat stopped: a row read on a tiny table.
// A dead executor's work is taken over within EXECUTOR_DEAD_AFTER_MS plus this.
const CHECK_INTERVAL_MS = 500;
// At most this many due executions are taken over at once; the rest are in the queue or are the
// reconciler's (a backlog that large is waiting in the queue, not held by one executor).
const DUE_LIMIT = 10_000;

/**
 * Every CHECK_INTERVAL_MS, takes over the work of executors whose heartbeat has been silent for
 * EXECUTOR_DEAD_AFTER_MS (docs/adr/018-liveness-based-reclaim.md) and hands it to `take`, which
 * runs it here, so that it does not wait for the dead executor's queue locks or for the
 * reconciler. stop() waits for a check in progress.
 */
export function watchDeadExecutors(runtime: Runtime, options: { dueWithinMs: number; take: (reclaimed: Reclaimed) => void }): { stop(): Promise<void> } {
  const { config, logger } = runtime;
  return watchDeadWorkers(runtime, {
    what: 'executors',
    intervalMs: CHECK_INTERVAL_MS,
    deadAfterMs: config.executorDeadAfterMs,
    reclaim: () => reclaimExecutions(runtime.pool, { workerId: runtime.workerId, deadAfterMs: config.executorDeadAfterMs, dueWithinMs: options.dueWithinMs, dueLimit: DUE_LIMIT }),
    take: (reclaimed) => {
      logger.warn('took over the work of executors whose heartbeat stopped', { workers: reclaimed.workers, running: reclaimed.running.length, due: reclaimed.due.length });
      options.take(reclaimed);
    },
  });
}
