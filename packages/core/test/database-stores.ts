import { createDatabase, type Db, type PoolOptions, type SqlPool } from '../src/db/client.js';

export interface DatabaseStores {
  db: Db;
  pool: SqlPool;
  close(): Promise<void>;
}

/**
 * Prisma and a pool of the service's kind on `url`, with options of the test's choosing (a short
 * statement timeout, one connection): to hand an app deps whose database misbehaves on cue.
 */
export function openDatabaseStores(url: string, options: PoolOptions = {}): DatabaseStores {
  const { db, pool } = createDatabase(url, options);
  return {
    db,
    pool,
    async close() {
      await db.$disconnect();
      await pool.end().catch(() => undefined);
    },
  };
}
