import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const defaultMigrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../prisma/migrations');

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

// Prisma's own bookkeeping table, so that `prisma migrate deploy` on a machine with
// engines sees what this applier ran as applied.
const CREATE_PRISMA_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

// Any constant works; it only has to be the same for every process migrating this database.
const MIGRATION_LOCK_KEY = 72707369;

export async function readMigrations(dir = defaultMigrationsDir): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/** Creates the database named in `databaseUrl` when it does not exist yet. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
      } catch (error) {
        // Another process created it between the check and the create.
        if ((error as { code?: string }).code !== '42P04') throw error;
      }
    }
  } finally {
    await client.end();
  }
}

/**
 * Runs `work` on a connection of its own while holding the migration lock, the advisory lock
 * every process migrating this database takes: what runs under it runs once at a time.
 */
export async function withMigrationLock<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    return await work(client);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}

/**
 * Applies pending migrations in name order, each in its own transaction, under an
 * advisory lock so that processes starting together apply each migration once.
 * Returns the names applied now.
 */
export async function applyMigrations(databaseUrl: string, migrations?: Migration[]): Promise<string[]> {
  const all = migrations ?? (await readMigrations());
  return withMigrationLock(databaseUrl, async (client) => {
    const applied: string[] = [];
    await client.query(CREATE_PRISMA_TABLE);
    const done = await client.query<{ migration_name: string; checksum: string }>(
      'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const doneByName = new Map(done.rows.map((r) => [r.migration_name, r.checksum]));
    for (const migration of all) {
      const previous = doneByName.get(migration.name);
      if (previous !== undefined) {
        if (previous !== migration.checksum) {
          throw new Error(`Migration ${migration.name} was changed after it was applied (checksum differs)`);
        }
        continue;
      }
      const id = randomUUID();
      await client.query('BEGIN');
      try {
        await client.query(
          'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())',
          [id, migration.checksum, migration.name],
        );
        await client.query(migration.sql);
        await client.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [id]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`);
      }
      applied.push(migration.name);
    }
    return applied;
  });
}
