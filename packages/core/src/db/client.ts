import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/client.js';

export type Db = PrismaClient;
export type SqlPool = pg.Pool;
export { Prisma } from './generated/client.js';
export type { Job as JobRow, Execution as ExecutionRow, Attempt as AttemptRow, Workspace as WorkspaceRow } from './generated/client.js';

/**
 * Every statement is planned for its actual parameters. The hot statements are prepared, and a
 * prepared statement's generic plan is cached: one made while a table was nearly empty (a new
 * database, or right after a TRUNCATE) keeps scanning the whole table once it holds thousands of
 * rows, until autovacuum analyzes it. Custom plans see the table's real size; they cost a planning
 * per statement, and the hot statements each carry a batch.
 */
const SESSION_OPTIONS = '-c plan_cache_mode=force_custom_plan';

/** A Prisma client that owns its pool: $disconnect closes everything. */
export function createDb(databaseUrl: string, options: { max?: number } = {}): Db {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: options.max ?? 10, options: SESSION_OPTIONS }) });
}

/**
 * Prisma for everything, and its connection pool (the caller ends it after $disconnect) for the
 * hot statements (the executor's two per attempt, the API's token lookup and job insert), which
 * run there as named prepared statements so Postgres plans them once per connection.
 */
export function createDatabase(databaseUrl: string, options: { max?: number } = {}): { db: Db; pool: SqlPool } {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.max ?? 10, options: SESSION_OPTIONS });
  // An idle connection the server drops (restart, failover) must not crash the process; the
  // next query on the pool opens a new one, or fails and is answered as unavailable.
  pool.on('error', () => undefined);
  return { db: new PrismaClient({ adapter: new PrismaPg(pool) }), pool };
}

/** Builds a parameterised statement: each value added becomes the next $n placeholder. */
export class SqlBuilder {
  readonly values: unknown[] = [];

  param(value: unknown): string {
    this.values.push(value);
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
