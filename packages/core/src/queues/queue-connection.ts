import { createPostgresBackend, Queue, runMigrations, Worker, type Processor, type WorkerOptions } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import pg from 'pg';
import { outlivingDroppedConnections } from '../db/dropped-connections.js';

/**
 * Where BullMQ keeps the queues: Redis, or BullMQ's PostgreSQL backend in the service's own
 * database (docs/adr/008-queues-on-postgres.md). Producers and workers take one of these and
 * never look inside, so the apps do not depend on the choice.
 */
export type QueueConnection = { backend: 'redis'; redis: Redis | Cluster; prefix: string } | { backend: 'postgres'; pool: pg.Pool };

/** The schema BullMQ's PostgreSQL backend lives in, beside the service's tables in `public`. */
export const QUEUE_SCHEMA = 'bullmq';

/**
 * A pool for BullMQ's PostgreSQL backend. BullMQ's SQL names its tables unqualified, so the
 * pool's connections search its schema first. Queue rows only mirror the executions and
 * deliveries Postgres already holds (the reconcilers rebuild them), so their commits do not
 * wait for the WAL flush: a crash of the machine can lose the last few hundred milliseconds of
 * queue writes, never a job or an execution.
 */
export function createQueuePool(databaseUrl: string, max: number): pg.Pool {
  return outlivingDroppedConnections(new pg.Pool({ connectionString: databaseUrl, max, options: `-c search_path=${QUEUE_SCHEMA} -c synchronous_commit=off` }));
}

/** Creates or upgrades BullMQ's schema in this database (idempotent, under BullMQ's advisory lock). */
export async function applyQueueSchema(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await runMigrations(client, QUEUE_SCHEMA);
  } finally {
    await client.end();
  }
}

/**
 * A BullMQ queue on this connection. Both backends implement the same Queue API; the type is
 * the Redis one so that callers need not carry BullMQ's backend type parameter around.
 */
export function openQueue<T>(name: string, connection: QueueConnection): Queue<T> {
  if (connection.backend === 'redis') return new Queue<T>(name, { connection: connection.redis, prefix: connection.prefix });
  return new Queue(name, { connection: connection.pool }, createPostgresBackend) as unknown as Queue<T>;
}

// A worker whose fetch failed for want of a connection tries again after this long (BullMQ's
// runRetryDelay, 15 s by default). On PostgreSQL that is the service's database coming back from
// an outage, and jobs due meanwhile must not wait 15 s more; one connection attempt per worker
// every half second costs the server nothing (docs/adr/033-noticing-the-database-is-back.md).
const POSTGRES_RUN_RETRY_DELAY_MS = 500;

/** A BullMQ worker on this connection (see openQueue). */
export function openWorker<T>(name: string, processor: Processor<T>, connection: QueueConnection, options: Omit<WorkerOptions, 'connection'>): Worker<T> {
  if (connection.backend === 'redis') return new Worker<T>(name, processor, { ...options, connection: connection.redis, prefix: connection.prefix });
  return new Worker(name, processor as Processor, { runRetryDelay: POSTGRES_RUN_RETRY_DELAY_MS, ...options, connection: connection.pool }, createPostgresBackend) as unknown as Worker<T>;
}
