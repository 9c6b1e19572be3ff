import { Redis } from 'ioredis';

/**
 * Redis connections. Workers block on Redis and must wait out an outage forever
 * (maxRetriesPerRequest null); producers give up after one reconnection attempt instead, because Postgres already holds
 * the work and the reconciler queues it once Redis is back.
 */
export function createRedis(url: string, role: 'worker' | 'producer'): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    lazyConnect: false,
  });
}
