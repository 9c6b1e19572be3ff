import type { Redis } from 'ioredis';
import type { Config } from '../config/config.js';
import { createDatabase, createDb } from '../db/client.js';
import { applyMigrations, ensureDatabase } from '../db/migrate.js';
import { jobQuotaConnectionOption } from '../jobs/job-quota.js';
import { createLogger, type Logger } from '../logging/logger.js';
import { createQueues } from '../queues/queues.js';
import { ensureBootstrapWorkspace } from '../workspaces/workspaces.js';
import { systemClock, type Deps } from './deps.js';
import { createRedis } from './redis.js';

export interface Runtime extends Deps {
  /** Connection for queue producers. */
  redis: Redis;
  /** Opens a blocking connection for a worker; closed by close(). */
  workerRedis(): Redis;
  close(): Promise<void>;
}

export function serviceLogger(config: Config, service: string): Logger {
  return createLogger({ level: config.logLevel, production: config.nodeEnv === 'production', service });
}

/** Creates the database if missing, applies migrations and the bootstrap token (D1). */
export async function prepareDatabase(config: Config, logger: Logger): Promise<void> {
  await ensureDatabase(config.databaseUrl);
  const applied = await applyMigrations(config.databaseUrl);
  if (applied.length > 0) logger.info('migrations applied', { applied });
  if (config.bootstrapApiToken) {
    const db = createDb(config.databaseUrl, { max: 1 });
    try {
      await ensureBootstrapWorkspace(db, config.secretsEncryptionKey, config.bootstrapApiToken);
    } finally {
      await db.$disconnect();
    }
  }
}

export function createRuntime(config: Config, logger: Logger, options: { dbPoolSize?: number } = {}): Runtime {
  const { db, pool } = createDatabase(config.databaseUrl, { max: options.dbPoolSize ?? 10, settings: jobQuotaConnectionOption(config.maxJobsPerWorkspace) });
  const redis = createRedis(config.redisUrl, 'producer');
  const queues = createQueues(redis, config.redisPrefix, { deliverEarlyMs: config.executorPrefetchMs, onError: (error) => logger.warn('queue error', { error: error.message }) });
  const extra: Redis[] = [];
  redis.on('error', (error) => logger.warn('redis error', { error: error.message }));
  return {
    db,
    pool,
    redis,
    queues,
    clock: systemClock,
    logger,
    config,
    workerRedis() {
      const connection = createRedis(config.redisUrl, 'worker');
      connection.on('error', (error) => logger.warn('redis error', { error: error.message }));
      extra.push(connection);
      return connection;
    },
    async close() {
      await queues.close();
      for (const connection of [redis, ...extra]) connection.disconnect();
      await db.$disconnect();
      // Prisma does not end a pool it was handed.
      await pool.end().catch(() => undefined);
    },
  };
}
