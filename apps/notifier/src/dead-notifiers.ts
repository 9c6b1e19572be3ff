import { reclaimDeliveries, repeat, type ReclaimedDeliveries, type Runtime } from '@cronsvc/core';

// How often a notifier looks for notifiers whose heartbeat stopped: a row read on a tiny table.
// A dead notifier's deliveries are sent within NOTIFIER_DEAD_AFTER_MS plus this.
const CHECK_INTERVAL_MS = 500;
// At most this many due deliveries are taken over at once; the rest are the reconciler's.
const DUE_LIMIT = 10_000;

/**
 * Every CHECK_INTERVAL_MS, takes over the deliveries of notifiers whose heartbeat has been silent
 * for NOTIFIER_DEAD_AFTER_MS (docs/RELIABILITY.md, "A dead notifier") and hands them to `take`,
 * which sends them here, without waiting for their delivery leases or for the reconciler. Judges
 * nobody while its own database access fails, and for NOTIFIER_DEAD_AFTER_MS after, as executors
 * do (docs/adr/018-liveness-based-reclaim.md). stop() waits for a check in progress.
 */
export function watchDeadNotifiers(runtime: Runtime, options: { workerId: string; take: (reclaimed: ReclaimedDeliveries) => void }): { stop(): Promise<void> } {
  const { config, logger } = runtime;
  let failing = false;
  let judgeFrom = 0;
  const check = async () => {
    if (failing || Date.now() < judgeFrom) {
      await runtime.pool.query('SELECT 1');
      if (failing) judgeFrom = Date.now() + config.notifierDeadAfterMs;
      failing = false;
      return;
    }
    const reclaimed = await reclaimDeliveries(runtime.pool, { workerId: options.workerId, deadAfterMs: config.notifierDeadAfterMs, dueLimit: DUE_LIMIT });
    if (reclaimed.workers.length === 0) return;
    logger.warn('took over the deliveries of notifiers whose heartbeat stopped', { workers: reclaimed.workers, running: reclaimed.running.length, due: reclaimed.due.length });
    options.take(reclaimed);
  };
  const stop = repeat('looking for dead notifiers', check, CHECK_INTERVAL_MS, (name, error) => {
    if (!failing) logger.warn(`${name} failed; retrying`, { error: (error as Error).message });
    failing = true;
  });
  return { stop };
}
