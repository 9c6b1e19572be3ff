import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ConfigError } from '../config/config.js';

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

/**
 * The database holds migrations that this code does not have: a newer version of the service
 * migrated it. Running older code on it could write what the newer schema forbids, so every
 * process refuses to start (exit 78, as for any configuration problem).
 */
export class UnknownMigrationsError extends ConfigError {
  constructor(readonly names: string[]) {
    super(
      `The database has migrations this version of the service does not know: ${names.join(', ')}. ` +
        'A newer version migrated it: run that version (or a later one), or restore a backup taken before the upgrade.',
    );
  }
}

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

/**
 * Creates the database named in `databaseUrl` when it does not exist yet. A database that exists
 * is only connected to: a managed server or a pooler may not let the service's user reach the
 * `postgres` database or create one.
 */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  const probe = new pg.Client({ connectionString: databaseUrl });
  try {
    await probe.connect();
    return;
  } catch (error) {
    // 3D000: the database does not exist; anything else is for the caller.
    if ((error as { code?: string }).code !== '3D000') throw error;
  } finally {
    await probe.end().catch(() => undefined);
  }
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
      } catch (error) {
        // Another process created it between the check and the create (42P04), or at the same
        // moment (23505 on pg_database's unique name index).
        const code = (error as { code?: string }).code;
        if (code !== '42P04' && code !== '23505') throw error;
      }
    }
  } finally {
    await client.end();
  }
}

/**
 * Runs `work` in a transaction on a connection of its own while holding the migration lock, the
 * advisory lock every process migrating this database takes: what runs under it runs once at a
 * time. Committed when `work` resolves, rolled back when it throws. The lock is the transaction's,
 * so it holds through a pooler in transaction mode too.
 */
export async function withMigrationLock<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    await client.end();
  }
}

/**
 * Applies pending migrations in name order, each in its own transaction under the migration lock
 * (withMigrationLock), so that processes starting together apply each migration once: each
 * transaction reads what is applied and applies the next migration, if any. Returns the names
 * applied now. Throws UnknownMigrationsError, applying nothing, when the database holds applied
 * migrations that are not in `migrations`.
 */
export async function applyMigrations(databaseUrl: string, migrations?: Migration[]): Promise<string[]> {
  const all = migrations ?? (await readMigrations());
  const known = new Set(all.map((m) => m.name));
  const applied: string[] = [];
  for (;;) {
    const next = await withMigrationLock(databaseUrl, async (client) => {
      await client.query(CREATE_PRISMA_TABLE);
      const done = await client.query<{ migration_name: string; checksum: string }>(
        'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
      );
      const doneByName = new Map(done.rows.map((r) => [r.migration_name, r.checksum]));
      const unknown = [...doneByName.keys()].filter((name) => !known.has(name)).sort();
      if (unknown.length > 0) throw new UnknownMigrationsError(unknown);
      for (const migration of all) {
        const previous = doneByName.get(migration.name);
        if (previous !== undefined && previous !== migration.checksum) {
          throw new Error(`Migration ${migration.name} was changed after it was applied (checksum differs)`);
        }
      }
      const pending = all.find((migration) => !doneByName.has(migration.name));
      if (!pending) return undefined;
      const id = randomUUID();
      await client.query('INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())', [id, pending.checksum, pending.name]);
      try {
        await client.query(pending.sql);
      } catch (error) {
        throw new Error(`Migration ${pending.name} failed: ${(error as Error).message}`);
      }
      await client.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [id]);
      return pending;
    });
    if (!next) return applied;
    applied.push(next.name);
  }
}
