import { createHash } from 'node:crypto';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { applyMigrations, ensureDatabase, readMigrations } from '../src/db/migrate.js';
import { databaseUrl, testRun, uniqueName } from './test-env.js';

const made: string[] = [];
const freshUrl = () => {
  const name = uniqueName(`cronsvc_test_${testRun}`);
  made.push(name);
  return databaseUrl(name);
};

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  for (const name of made) await query(databaseUrl('postgres'), `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
});

describe('migration applier', () => {
  it('creates a missing database and records each migration the way prisma migrate does', async () => {
    const url = freshUrl();
    await ensureDatabase(url);
    await ensureDatabase(url);
    const applied = await applyMigrations(url);
    const migrations = await readMigrations();
    expect(applied).toEqual(migrations.map((m) => m.name));
    const rows = await query<{ migration_name: string; checksum: string; finished_at: Date | null; applied_steps_count: number; id: string }>(
      url,
      'SELECT id, migration_name, checksum, finished_at, applied_steps_count FROM _prisma_migrations ORDER BY migration_name',
    );
    expect(rows.map((r) => r.migration_name)).toEqual(migrations.map((m) => m.name));
    for (const [i, row] of rows.entries()) {
      expect(row.checksum).toBe(createHash('sha256').update(migrations[i].sql).digest('hex'));
      expect(row.finished_at).not.toBeNull();
      expect(row.applied_steps_count).toBe(1);
      expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(await applyMigrations(url)).toEqual([]);
  });

  it('applies each migration once when several processes start together', async () => {
    const url = freshUrl();
    await ensureDatabase(url);
    const results = await Promise.all([applyMigrations(url), applyMigrations(url), applyMigrations(url)]);
    expect(results.flat()).toHaveLength((await readMigrations()).length);
  });

  it('rolls back a failing migration and refuses one edited after it was applied', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'migrations-'));
    const write = async (name: string, sql: string) => {
      await mkdir(path.join(dir, name), { recursive: true });
      await writeFile(path.join(dir, name, 'migration.sql'), sql);
    };
    const url = freshUrl();
    await ensureDatabase(url);
    await write('001_ok', 'CREATE TABLE a (id int);');
    await write('002_bad', 'CREATE TABLE b (id int); SELECT * FROM missing_table;');
    await expect(applyMigrations(url, await readMigrations(dir))).rejects.toThrow(/002_bad failed/);
    const tables = await query<{ table_name: string }>(url, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1");
    expect(tables.map((t) => t.table_name)).toEqual(['_prisma_migrations', 'a']);
    await write('002_bad', 'CREATE TABLE b (id int);');
    expect(await applyMigrations(url, await readMigrations(dir))).toEqual(['002_bad']);
    await write('001_ok', 'CREATE TABLE a (id bigint);');
    await expect(applyMigrations(url, await readMigrations(dir))).rejects.toThrow(/001_ok was changed/);
  });
});
