import type { Redis } from 'ioredis';
import type pg from 'pg';
import { EMBEDDED_DATABASE, type Config } from '../config/config.js';
import { createDatabase, createDb } from '../db/client.js';
import { applyMigrations, ensureDatabase } from '../db/migrate.js';
import { jobQuotaConnectionOption } from '../jobs/job-quota.js';
import { createLogger, type Logger } from '../logging/logger.js';
import { applyQueueSchema, createQueuePool, type QueueConnection } from '../queues/queue-connection.js';
import { upgradeStoredValues } from '../secrets/upgrade-stored-values.js';
import { createQueues } from '../queues/queues.js';
import { ensureBootstrapWorkspace } from '../workspaces/workspaces.js';
import { systemClock, type Deps } from '../deps/deps.js';
import { createRedis } from './redis.js';

export interface Runtime extends Deps {
  /** Redis of the queue producers; undefined when the queues are on PostgreSQL. */
  redis: Redis | undefined;
  /** Opens the connection a queue worker waits on (Redis or PostgreSQL, as configured); closed by close(). */
  workerConnection(): QueueConnection;
  close(): Promise<void>;
}

export function serviceLogger(config: Config, service: string): Logger {
  return createLogger({ level: config.logLevel, production: config.nodeEnv === 'production', service });
}

function assertResolved(config: Config): void {
  if (config.databaseUrl === EMBEDDED_DATABASE || config.queueBackend === 'auto') {
    throw new Error('resolveStores() must decide the database and the queue backend before this');
  }
}

/**
 * Creates the database if missing, applies migrations (and BullMQ's schema when the queues are
 * on PostgreSQL), rewrites stored values of an older form, and applies the bootstrap token.
 */
export async function prepareDatabase(config: Config, logger: Logger): Promise<void> {
  assertResolved(config);
  await ensureDatabase(config.databaseUrl);
  const applied = await applyMigrations(config.databaseUrl);
  if (applied.length > 0) logger.info('migrations applied', { applied });
  const upgraded = await upgradeStoredValues(config.databaseUrl, config.secretsEncryptionKey);
  if (Object.keys(upgraded.rewritten).length > 0) logger.info('stored values re-encrypted (enc2)', { rewritten: upgraded.rewritten });
  if (Object.keys(upgraded.unreadable).length > 0) {
    logger.warn('stored values that do not open with SECRETS_ENCRYPTION_KEY were left as they are', { unreadable: upgraded.unreadable });
  }
  if (config.queueBackend === 'postgres') await applyQueueSchema(config.databaseUrl);
  if (config.bootstrapApiToken) {
    const db = createDb(config.databaseUrl, { max: 1 });
    try {
      await ensureBootstrapWorkspace(db, config.secretsEncryptionKey, config.bootstrapApiToken);
    } finally {
      await db.$disconnect();
    }
  }
}

// Connections a queue worker's pool may use on PostgreSQL: its claims and completions are one
// statement each, so a few connections serve hundreds of concurrent jobs.
const WORKER_QUEUE_POOL = 8;

export function createRuntime(config: Config, logger: Logger, options: { dbPoolSize?: number; queuePoolSize?: number } = {}): Runtime {
  assertResolved(config);
  const { db, pool } = createDatabase(config.databaseUrl, { max: options.dbPoolSize ?? 10, settings: jobQuotaConnectionOption(config.maxJobsPerWorkspace) });
  const redisConnections: Redis[] = [];
  const queuePools: pg.Pool[] = [];
  const onRedisError = (error: Error) => logger.warn('redis error', { error: error.message });
  const connect = (role: 'worker' | 'producer'): QueueConnection => {
    if (config.queueBackend === 'postgres') {
      const queuePool = createQueuePool(config.databaseUrl, role === 'worker' ? WORKER_QUEUE_POOL : (options.queuePoolSize ?? 4));
      queuePools.push(queuePool);
      return { backend: 'postgres', pool: queuePool };
    }
    const redis = createRedis(config.redisUrl, role);
    redis.on('error', onRedisError);
    redisConnections.push(redis);
    return { backend: 'redis', redis, prefix: config.redisPrefix };
  };
  const producer = connect('producer');
  const queues = createQueues(producer, { deliverEarlyMs: config.executorPrefetchMs, onError: (error) => logger.warn('queue error', { error: error.message }) });
  return {
    db,
    pool,
    redis: producer.backend === 'redis' ? producer.redis : undefined,
    queues,
    clock: systemClock,
    logger,
    config,
    workerConnection: () => connect('worker'),
    async close() {
      await queues.close();
      for (const connection of redisConnections) connection.disconnect();
      await Promise.all(queuePools.map((p) => p.end().catch(() => undefined)));
      await db.$disconnect();
      // Prisma does not end a pool it was handed.
      await pool.end().catch(() => undefined);
    },
  };
}
