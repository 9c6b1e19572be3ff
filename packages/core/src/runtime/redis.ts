import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Config } from '../config/config.js';

/** A connection to Redis: one server (directly or through Sentinel), or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

export type RedisRole = 'worker' | 'producer' | 'probe';

// Workers block on Redis and must wait out an outage forever (maxRetriesPerRequest null);
// producers give up after one reconnection attempt instead, because Postgres already holds the
// work and the reconciler queues it once Redis is back; the start-up probe tries once, quickly.
const ROLE_OPTIONS: Record<RedisRole, RedisOptions> = {
  worker: { maxRetriesPerRequest: null },
  producer: { maxRetriesPerRequest: 1 },
  probe: { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 5_000, enableOfflineQueue: false },
};

/** User, password, database and TLS from REDIS_URL (`redis://` or `rediss://`), for the modes that do not read the URL themselves. */
function urlOptions(url: string): RedisOptions {
  const parsed = new URL(url);
  const db = Number(parsed.pathname.replace(/^\//, '') || 0);
  return {
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    db,
    tls: parsed.protocol === 'rediss:' ? { servername: parsed.hostname } : undefined,
  };
}

/**
 * A connection as the configuration says (docs/OPERATIONS.md, "Redis"), all through ioredis's own
 * support: REDIS_URL alone (password and `rediss://` TLS included); with REDIS_SENTINELS, the
 * master that the Sentinels name, with REDIS_URL's credentials, database and TLS; with
 * REDIS_CLUSTER, a Cluster found from REDIS_URL's node. TLS certificates are checked against
 * Node's CAs (NODE_EXTRA_CA_CERTS adds a private one).
 */
export function createRedis(config: Pick<Config, 'redisUrl' | 'redisSentinels' | 'redisSentinelMaster' | 'redisSentinelPassword' | 'redisCluster'>, role: RedisRole): RedisClient {
  if (config.redisCluster) {
    const { hostname, port } = new URL(config.redisUrl);
    return new Cluster([{ host: hostname, port: Number(port || 6379) }], {
      redisOptions: { ...urlOptions(config.redisUrl), ...ROLE_OPTIONS[role], db: undefined },
      lazyConnect: role === 'probe',
      enableOfflineQueue: role !== 'probe',
      clusterRetryStrategy: role === 'probe' ? () => null : undefined,
    });
  }
  if (config.redisSentinels.length > 0) {
    const fromUrl = urlOptions(config.redisUrl);
    return new Redis({
      ...fromUrl,
      ...ROLE_OPTIONS[role],
      sentinels: config.redisSentinels,
      name: config.redisSentinelMaster,
      sentinelPassword: config.redisSentinelPassword,
      enableTLSForSentinelMode: fromUrl.tls !== undefined,
    });
  }
  return new Redis(config.redisUrl, ROLE_OPTIONS[role]);
}
