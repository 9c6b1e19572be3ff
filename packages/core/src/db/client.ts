import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/client.js';

export type Db = PrismaClient;
export type SqlPool = pg.Pool;
export { Prisma } from './generated/client.js';
export type { Job as JobRow, Execution as ExecutionRow, Attempt as AttemptRow, Workspace as WorkspaceRow } from './generated/client.js';

export function createDb(databaseUrl: string, options: { max?: number } = {}): Db {
  return createDatabase(databaseUrl, options).db;
}

/**
 * Prisma for everything, and its connection pool for the executor's two statements per attempt,
 * which run there as named prepared statements so Postgres plans them once per connection.
 */
export function createDatabase(databaseUrl: string, options: { max?: number } = {}): { db: Db; pool: SqlPool } {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.max ?? 10 });
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
