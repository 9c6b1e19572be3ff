import type pg from 'pg';
import type { Config } from '../config/config.js';
import { createDatabase } from '../db/client.js';
import { databaseOutage, type DatabaseOutage } from '../db/database-outage.js';
import { newId } from '../ids/ids.js';
import { jobQuotaConnectionOption } from '../jobs/job-quota.js';
import { storedBytesConnectionOption } from '../db/stored-bytes.js';
import type { Logger } from '../logging/logger.js';
import { createQueuePool, type QueueConnection } from '../queues/queue-connection.js';
import { createQueues } from '../queues/queues.js';
import { redisOutage } from '../queues/redis-outage.js';
import { systemClock, type Deps } from '../deps/deps.js';
import type { Tracing } from '../tracing/tracing.js';
import { assertResolved } from './prepare-database.js';
import { createRedis, type RedisClient } from './redis.js';

export interface Runtime extends Deps {
  /**
   * This process's worker id: the id of its executor heartbeat, and the name its claims carry,
   * so that other executors know whose work to take over when the heartbeat stops.
   */
  workerId: string;
  /** Redis of the queue producers; undefined when the queues are on PostgreSQL. */
  redis: RedisClient | undefined;
  /** Opens the connection a queue worker waits on (Redis or PostgreSQL, as configured); closed by close(). */
  workerConnection(): QueueConnection;
  /** An error from a queue worker: on Redis, an outage is one warning for the whole process (RedisOutage). */
  reportQueueError(error: Error, what: string): void;
  /** This process's wait for its database after a call failed because it cannot serve (docs/adr/033-noticing-the-database-is-back.md). */
  databaseOutage: DatabaseOutage;
  close(): Promise<void>;
}

// Connections a queue worker's pool may use on PostgreSQL: its claims and completions are one
// statement each, so a few connections serve hundreds of concurrent jobs.
const WORKER_QUEUE_POOL = 8;

/**
 * The connections and dependencies of one process. `tracing` (startTracing's, when spans are
 * exported) is shut down by close(), last, so the spans of the work the stop finished go out.
 */
export function createRuntime(config: Config, logger: Logger, options: { dbPoolSize?: number; queuePoolSize?: number; tracing?: Tracing } = {}): Runtime {
  const { tracing } = options;
  assertResolved(config);
  // DATABASE_POOL_SIZE, when set, sizes every process's pool; otherwise each app's default.
  const max = config.databasePoolSize ?? options.dbPoolSize ?? 10;
  const settings = `${jobQuotaConnectionOption(config.maxJobsPerWorkspace)} ${storedBytesConnectionOption(config.maxStoredBytesPerWorkspace)}`;
  const { db, pool } = createDatabase(config.databaseUrl, { max, settings });
  const redisConnections: RedisClient[] = [];
  const queuePools: pg.Pool[] = [];
  const outage = config.queueBackend === 'postgres' ? undefined : redisOutage(logger);
  const connect = (role: 'worker' | 'producer'): QueueConnection => {
    if (config.queueBackend === 'postgres') {
      const queuePool = createQueuePool(config.databaseUrl, role === 'worker' ? WORKER_QUEUE_POOL : (options.queuePoolSize ?? 4));
      queuePools.push(queuePool);
      return { backend: 'postgres', pool: queuePool };
    }
    const redis = createRedis(config, role);
    outage!.watch(redis);
    redisConnections.push(redis);
    return { backend: 'redis', redis, prefix: config.redisPrefix };
  };
  const producer = connect('producer');
  const database = databaseOutage(() => pool.query('SELECT 1'), logger);
  const queues = createQueues(producer, { deliverEarlyMs: config.executorPrefetchMs, onError: (error) => logger.warn('queue error', { error: error.message }), outage, tracing });
  return {
    workerId: newId('wrk'),
    db,
    pool,
    redis: producer.backend === 'redis' ? producer.redis : undefined,
    queues,
    clock: systemClock,
    logger,
    config,
    tracing,
    workerConnection: () => connect('worker'),
    reportQueueError: (error, what) => (outage ? outage.report(error, what) : logger.warn(what, { error: error.message })),
    databaseOutage: database,
    async close() {
      database.stop();
      await queues.close();
      for (const connection of redisConnections) connection.disconnect();
      await Promise.all(queuePools.map((p) => p.end().catch(() => undefined)));
      await db.$disconnect();
      // Prisma does not end a pool it was handed.
      await pool.end().catch(() => undefined);
      await tracing?.shutdown();
    },
  };
}
