import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/client.js';
import { storableText } from '../validation/storable-text.js';
import { outlivingDroppedConnections } from './dropped-connections.js';

export type Db = PrismaClient;
export type SqlPool = pg.Pool;
export { Prisma } from './generated/client.js';
export type { Job as JobRow, Execution as ExecutionRow, Attempt as AttemptRow, Workspace as WorkspaceRow } from './generated/client.js';

/**
 * Every connection of the service's pools gives up connecting after 10 s (a server that accepts
 * the connection and never answers would otherwise hold a request forever), and has Postgres
 * cancel any statement after 30 s (a runaway query cannot hold a connection and its locks;
 * the longest statements, retention's batches of 1000 rows, take well under a second).
 * Migrations and the benchmark's seeding use connections of their own, without these limits.
 */
export const DB_CONNECT_TIMEOUT_MS = 10_000;
export const DB_STATEMENT_TIMEOUT_MS = 30_000;

export interface PoolOptions {
  max?: number;
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
  /** Settings of every connection, as libpq's `options` (`-c name=value ...`). */
  settings?: string;
}

/**
 * Every statement is planned for its actual parameters. The hot statements are prepared, and a
 * prepared statement's generic plan is cached: one made while a table was nearly empty (a new
 * database, or right after a TRUNCATE) keeps scanning the whole table once it holds thousands of
 * rows, until autovacuum analyzes it. Custom plans see the table's real size; they cost a planning
 * per statement, and the hot statements each carry a batch.
 */
const PLANNING = '-c plan_cache_mode=force_custom_plan';

function poolConfig(connectionString: string, options: PoolOptions): pg.PoolConfig {
  return {
    connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DB_CONNECT_TIMEOUT_MS,
    statement_timeout: options.statementTimeoutMs ?? DB_STATEMENT_TIMEOUT_MS,
    options: options.settings ? `${PLANNING} ${options.settings}` : PLANNING,
  };
}

/** A Prisma client that owns its pool: $disconnect closes everything. */
export function createDb(databaseUrl: string, options: PoolOptions = {}): Db {
  return new PrismaClient({ adapter: new PrismaPg(poolConfig(databaseUrl, options)) });
}

/** A connection pool of the service's settings, for plain SQL without Prisma. */
export function createPool(databaseUrl: string, options: PoolOptions = {}): SqlPool {
  return new pg.Pool(poolConfig(databaseUrl, options));
}

/**
 * Prisma for everything, and its connection pool (the caller ends it after $disconnect) for the
 * hot statements (the executor's two per attempt, the API's token lookup and job insert), which
 * run there as named prepared statements so Postgres plans them once per connection.
 */
export function createDatabase(databaseUrl: string, options: PoolOptions = {}): { db: Db; pool: SqlPool } {
  const pool = outlivingDroppedConnections(new pg.Pool(poolConfig(databaseUrl, options)));
  return { db: new PrismaClient({ adapter: new PrismaPg(pool) }), pool };
}

/** Builds a parameterised statement: each value added becomes the next $n placeholder. */
export class SqlBuilder {
  readonly values: unknown[] = [];

  /** Text cannot hold NUL in PostgreSQL: a string parameter has it replaced (validation/storable-text.ts). */
  param(value: unknown): string {
    this.values.push(typeof value === 'string' ? storableText(value) : value);
    return `$${this.values.length}`;
  }
}

/**
 * Runs `work` in a transaction on one connection of the pool: committed when it resolves,
 * rolled back when it throws. For hot paths that would rather not go through Prisma.
 */
export async function inTransaction<T>(pool: SqlPool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let failed: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A connection whose rollback fails too is broken: the pool drops it instead of reusing it.
    await client.query('ROLLBACK').catch((rollback: Error) => (failed = rollback));
    throw error;
  } finally {
    client.release(failed);
  }
}
