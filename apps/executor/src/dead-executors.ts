import { reclaimExecutions, repeat, type Reclaimed, type Runtime } from '@cronsvc/core';

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
  // When this executor's own database access fails (a restart, a network cut), every executor's
  // heartbeat goes quiet with it: for EXECUTOR_DEAD_AFTER_MS after it works again, this one judges
  // nobody, and the others, alive, beat again meanwhile.
  let failing = false;
  let judgeFrom = 0;
  const check = async () => {
    if (failing || Date.now() < judgeFrom) {
      await runtime.pool.query('SELECT 1');
      if (failing) judgeFrom = Date.now() + config.executorDeadAfterMs;
      failing = false;
      return;
    }
    const reclaimed = await reclaimExecutions(runtime.pool, {
      workerId: runtime.workerId,
      deadAfterMs: config.executorDeadAfterMs,
      dueWithinMs: options.dueWithinMs,
      dueLimit: DUE_LIMIT,
    });
    if (reclaimed.workers.length === 0) return;
    logger.warn('took over the work of executors whose heartbeat stopped', { workers: reclaimed.workers, running: reclaimed.running.length, due: reclaimed.due.length });
    options.take(reclaimed);
  };
  const stop = repeat('looking for dead executors', check, CHECK_INTERVAL_MS, (name, error) => {
    if (!failing) logger.warn(`${name} failed; retrying`, { error: (error as Error).message });
    failing = true;
  });
  return { stop };
}
