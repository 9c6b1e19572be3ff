import { reclaimDeliveries, type ReclaimedDeliveries, type Runtime, watchDeadWorkers } from '@cronsvc/core';

// How often a notifier looks for notifiers whose heartbeat stopped: a row read on a tiny table.
// A dead notifier's deliveries are sent within NOTIFIER_DEAD_AFTER_MS plus this.
const CHECK_INTERVAL_MS = 500;
// At most this many due deliveries are taken over at once; the rest are the reconciler's.
const DUE_LIMIT = 10_000;

/**
 * Every CHECK_INTERVAL_MS, takes over the deliveries of notifiers whose heartbeat has been silent
 * for NOTIFIER_DEAD_AFTER_MS (docs/RELIABILITY.md, "A dead notifier") and hands them to `take`,
 * which sends them here, without waiting for their delivery leases or for the reconciler. Judges
 * nobody while its own database access fails, and for NOTIFIER_DEAD_AFTER_MS after
 * (watchDeadWorkers). stop() waits for a check in progress.
 */
export function watchDeadNotifiers(runtime: Runtime, options: { workerId: string; take: (reclaimed: ReclaimedDeliveries) => void }): { stop(): Promise<void> } {
  const { config, logger } = runtime;
  return watchDeadWorkers(runtime, {
    what: 'notifiers',
    intervalMs: CHECK_INTERVAL_MS,
    deadAfterMs: config.notifierDeadAfterMs,
    reclaim: () => reclaimDeliveries(runtime.pool, { workerId: options.workerId, deadAfterMs: config.notifierDeadAfterMs, dueLimit: DUE_LIMIT }),
    take: (reclaimed) => {
      logger.warn('took over the deliveries of notifiers whose heartbeat stopped', { workers: reclaimed.workers, running: reclaimed.running.length, due: reclaimed.due.length });
      options.take(reclaimed);
    },
  });
}
