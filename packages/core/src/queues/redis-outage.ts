import type { Logger } from '../logging/logger.js';
import type { Cluster, Redis } from 'ioredis';

// What a connection to Redis says, and BullMQ passes on, when Redis cannot be reached.
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED']);
const CONNECTION_MESSAGES = /Connection is closed|Stream isn't writeable|max retries per request|Reached the max retries|sentinels are unreachable|Failed to refresh slots cache|None of startup nodes is available|ECONNREFUSED|ECONNRESET|ETIMEDOUT/i;

/** Whether `error` says that Redis cannot be reached, rather than that a command went wrong. */
export function isConnectionError(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return (typeof e?.code === 'string' && CONNECTION_CODES.has(e.code)) || (typeof e?.message === 'string' && CONNECTION_MESSAGES.test(e.message));
}

/**
 * One process's view of its Redis (docs/RELIABILITY.md, "Losing Redis or Postgres"). Every
 * connection of the process, and every BullMQ queue and worker on them, reports each failed
 * reconnection; an outage is one warning, when it begins, and one line when every connection
 * is ready again, however many connections and reconnection attempts there are. Errors that are
 * not about reaching Redis are logged as they come.
 */
export interface RedisOutage {
  /** Follows a connection: its errors, and its readiness again after an outage. */
  watch(redis: Redis | Cluster): void;
  /** An error from a queue or a worker on Redis; `what` names it when it is not an outage. */
  report(error: Error, what: string): void;
  /** Whether the process is waiting for Redis now. */
  readonly down: boolean;
  /** Runs `back` each time Redis is back after an outage, and when asked to (see HeldAdds). */
  onBack(back: () => void): void;
}

export function redisOutage(logger: Logger, now: () => number = Date.now): RedisOutage {
  const connections: (Redis | Cluster)[] = [];
  const backs: (() => void)[] = [];
  let downSince: number | undefined;
  const lost = (error: Error) => {
    if (downSince !== undefined) return;
    downSince = now();
    logger.warn('Redis cannot be reached; work waits in Postgres and is queued when it is back', { error: error.message });
  };
  const report = (error: Error, what: string) => {
    if (connections.some((c) => c.status !== 'ready')) lost(error);
    // A command that failed while Redis was away can say so after every connection is back.
    else if (!isConnectionError(error)) logger.warn(what, { error: error.message });
  };
  function ready() {
    if (downSince === undefined || connections.some((c) => c.status !== 'ready')) return;
    logger.info('Redis is back', { downMs: now() - downSince });
    downSince = undefined;
    for (const back of backs) back();
  }
  return {
    watch(redis) {
      connections.push(redis);
      redis.on('error', (error: Error) => report(error, 'redis error'));
      redis.on('ready', ready);
    },
    report,
    get down() {
      return downSince !== undefined;
    },
    onBack(back) {
      backs.push(back);
    },
  };
}
