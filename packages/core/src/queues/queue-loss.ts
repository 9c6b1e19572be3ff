import type { Cluster, Redis } from 'ioredis';
import type { Logger } from '../logging/logger.js';

/** The key the watch keeps in Redis, under REDIS_PREFIX: gone means Redis lost its data. */
export function queueSentinelKey(prefix: string): string {
  return `${prefix}:queue-sentinel`;
}

export interface QueueLossWatch {
  stop(): Promise<void>;
}

export type QueueLossReason = 'sentinel gone' | 'reconnected';

/**
 * Notices at once that Redis lost the queues (FLUSHALL, a restart without persistence, a failover
 * to an empty replica) instead of waiting for the reconciler to find their executions overdue
 * (docs/RELIABILITY.md, "Losing Redis or Postgres"). It writes a sentinel key and reads it back
 * every `intervalMs`: a GET answered with nothing means the data is gone. A connection that comes
 * back after it was lost counts too, because a restarted Redis may have reloaded a snapshot older
 * than its last writes, sentinel included. Either way it writes the sentinel again first, so that a
 * loss during the rebuild is seen as well, and then runs `rebuild` (never two at once: a loss seen
 * while one runs starts another after it).
 */
export function watchQueueLoss(
  redis: Redis | Cluster,
  options: { prefix: string; intervalMs: number; rebuild: (reason: QueueLossReason) => Promise<void>; logger: Logger },
): QueueLossWatch {
  const { logger } = options;
  const key = queueSentinelKey(options.prefix);
  const mark = () => redis.set(key, String(Date.now()));
  let stopped = false;
  let pending: QueueLossReason | undefined;
  let rebuilding: Promise<void> | undefined;
  const rebuild = (reason: QueueLossReason) => {
    pending = reason;
    if (rebuilding) return;
    rebuilding = (async () => {
      while (pending && !stopped) {
        const why: QueueLossReason = pending;
        pending = undefined;
        const started = Date.now();
        try {
          await mark();
          await options.rebuild(why);
          logger.info('queues rebuilt from Postgres', { reason: why, ms: Date.now() - started });
        } catch (error) {
          // Redis (or Postgres) went away again: look again on the next check.
          logger.warn('queue rebuild failed; trying again', { reason: why, error: (error as Error).message });
          pending ??= why;
          await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
        }
      }
    })().finally(() => (rebuilding = undefined));
  };

  // ioredis says 'ready' on every connection made; only the ones after a lost connection matter.
  let connectedBefore = redis.status === 'ready';
  const onReady = () => {
    if (connectedBefore && !stopped) {
      logger.info('rebuilding the queues from Postgres: Redis may have lost them while the connection was down');
      rebuild('reconnected');
    }
    connectedBefore = true;
  };
  redis.on('ready', onReady);

  let timer: NodeJS.Timeout | undefined;
  let checking: Promise<void> = Promise.resolve();
  const check = async () => {
    // A GET left waiting for the connection would reach a restarted Redis before the sentinel
    // is written again; the reconnection rebuilds the queues anyway.
    if (redis.status !== 'ready') return;
    try {
      if ((await redis.get(key)) === null && !stopped) {
        logger.warn('Redis lost the queues (the sentinel key is gone); rebuilding them from Postgres', { key });
        rebuild('sentinel gone');
      }
    } catch {
      // Redis does not answer: the producers say so; the reconnection is what to wait for.
    }
  };
  const tick = () => {
    checking = check().finally(() => {
      if (!stopped) timer = setTimeout(tick, options.intervalMs);
    });
  };
  void mark()
    .catch(() => undefined)
    .finally(() => {
      if (!stopped) timer = setTimeout(tick, options.intervalMs);
    });

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      redis.off('ready', onReady);
      await checking;
      await rebuilding;
    },
  };
}
