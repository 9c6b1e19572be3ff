import {
  expireWaits, fireDueJobs, JOB_STATS_KEPT_DAYS, pruneAuditEvents, pruneExecutions, pruneFireGaps, pruneJobStats, pruneMonitorDeliveries, pruneRateLimitWindows, pruneSnoozeTokens, reconcileDeliveries, reconcileQueue, repeat, retentionCutoff, watchQueueLoss, type Runtime
} from '@cronsvc/core';

// How often the scheduler looks for the sentinel key that tells it Redis lost the queues: a GET
// costs Redis next to nothing, and the lag of fires due right after a loss is about this long.
const QUEUE_LOSS_CHECK_MS = 250;

// Retention is counted in days: pruning hourly keeps each run small without busy-looping.
const RETENTION_INTERVAL_MS = 3_600_000;

export interface Scheduler {
  stop(): Promise<void>;
}

/**
 * Turns due schedules into queued executions, and keeps the queue in step with Postgres:
 * at start every pending execution is queued again (Redis may have lost it), and again as soon
 * as Redis is seen to have lost its data; later every execution that is overdue or whose worker died.
 */
export async function startScheduler(runtime: Runtime): Promise<Scheduler> {
  const { config, logger, clock } = runtime;
  const onError = (name: string, error: unknown) => logger.warn(`${name} failed; retrying`, { error: (error as Error).message });
  // A pass that failed because the database is away runs again the moment it answers, rather than
  // a tick or a reconcile interval later: what came due meanwhile is fired at once
  // (docs/adr/033-noticing-the-database-is-back.md). The outage is logged once, not per pass.
  const untilBack = { untilRetry: (error: unknown) => runtime.databaseOutage.untilBack(error) };
  // Later than any due time, and a date PostgreSQL accepts as a parameter (JavaScript's latest date is not).
  const far = new Date(Date.UTC(9999, 11, 31));
  // Everything pending, the soonest due first (reconcileQueue pages in due order).
  const rebuildQueues = async () => {
    await reconcileQueue(runtime, { dueBefore: far });
    await reconcileDeliveries(runtime, { dueBefore: far });
  };
  // Started before the start-up rebuild: its sentinel is then older than what the rebuild queues.
  const lossWatch = runtime.redis ? watchQueueLoss(runtime.redis, { prefix: config.redisPrefix, intervalMs: QUEUE_LOSS_CHECK_MS, rebuild: rebuildQueues, logger }) : undefined;
  await rebuildQueues().catch((error) => onError('start-up queue rebuild', error));
  const stopFiring = repeat('fire', () => fireDueJobs(runtime, { lookaheadMs: config.schedulerLookaheadMs }), config.schedulerTickMs, onError, untilBack);
  const stopReconciling = repeat(
    'reconcile',
    async () => {
      const dueBefore = new Date(clock.now().getTime() - config.reconcileIntervalMs);
      await reconcileQueue(runtime, { dueBefore });
      await reconcileDeliveries(runtime, { dueBefore });
    },
    config.reconcileIntervalMs,
    onError,
    untilBack,
  );
  // Wait timers live in Postgres only (docs/adr/010-step-driven-executions.md): each pass queues
  // the waits whose time has come, so they expire within a tick, also after any restart.
  const stopTimers = repeat('wait-timers', () => expireWaits(runtime), config.schedulerTickMs, onError, untilBack);
  // The loop's first run is at start-up, so a service restarted more often than hourly still prunes.
  const stopPruning = repeat(
    'retention',
    async () => {
      const olderThan = retentionCutoff(clock.now(), config.executionRetentionDays);
      const pruned = await pruneExecutions(runtime, { olderThan });
      // The fire ledger reaches back as far as the executions do.
      await pruneFireGaps(runtime, { olderThan });
      const monitorDeliveries = await pruneMonitorDeliveries(runtime, { olderThan });
      if (pruned + monitorDeliveries > 0) logger.info('old executions pruned', { pruned, monitorDeliveries, retentionDays: config.executionRetentionDays });
      // The statistics rollup outlives the executions it counts, for the status pages' 90 days.
      await pruneJobStats(runtime, { olderThan: retentionCutoff(clock.now(), JOB_STATS_KEPT_DAYS) });
      await pruneRateLimitWindows(runtime);
      const auditEvents = await pruneAuditEvents(runtime, { olderThan: retentionCutoff(clock.now(), config.auditRetentionDays) });
      if (auditEvents > 0) logger.info('old audit events pruned', { auditEvents, retentionDays: config.auditRetentionDays });
      await pruneSnoozeTokens(runtime);
    },
    RETENTION_INTERVAL_MS,
    onError,
    untilBack,
  );
  logger.info('scheduler started', { tickMs: config.schedulerTickMs, lookaheadMs: config.schedulerLookaheadMs });
  return {
    async stop() {
      await Promise.all([stopFiring(), stopReconciling(), stopTimers(), stopPruning(), lossWatch?.stop()]);
    },
  };
}
