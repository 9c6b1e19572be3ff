import path from 'node:path';
import pg from 'pg';
import { databaseUrl, deleteRedisKeys, productionEnv, redisUrl, repoRoot, spawnProcess, testRun, uniqueName, waitFor, type ChildApp } from '@cronsvc/core/testing';
import { readMigrations } from '../packages/core/src/db/migrate.js';

// Migrations as processes apply them: several started at the same moment on a database that does
// not exist yet apply each migration once; a database migrated by a newer version stops every
// kind of process with exit 78, naming what it does not know. Compiled and in production, as
// operators run them.

const APPS = ['api', 'scheduler', 'executor', 'notifier'];
const STARTED: Record<string, RegExp> = { api: /api listening/, scheduler: /scheduler started/, executor: /executor started/, notifier: /notifier started/ };
const made: string[] = [];
let prefix: string;
let children: ChildApp[] = [];

beforeAll(() => {
  prefix = uniqueName('test');
});

afterEach(async () => {
  await Promise.all(children.map((c) => c.kill('SIGKILL').catch(() => undefined)));
  children = [];
});

afterAll(async () => {
  const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  for (const name of made) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
  await deleteRedisKeys(prefix);
});

function env(url: string): Record<string, string> {
  return productionEnv({ DATABASE_URL: url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: String(20_000 + Math.floor(Math.random() * 20_000)) });
}

function start(args: string[], processEnv: Record<string, string>): ChildApp {
  const child = spawnProcess(process.execPath, args.map((a) => path.join(repoRoot, a)), processEnv);
  children.push(child);
  return child;
}

const migrate = (processEnv: Record<string, string>) => start(['scripts/dist/migrate.js'], processEnv);
const app = (name: string, processEnv: Record<string, string>) => start([`apps/${name}/dist/main.js`], processEnv);

async function query<T extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** What a process says it applied: `applied: a, b` from npm run migrate, a JSON log line from an app. */
function appliedBy(output: string): string[] {
  const names: string[] = [];
  for (const line of output.split('\n')) {
    if (line.startsWith('applied: ')) names.push(...line.slice('applied: '.length).split(', '));
    if (line.includes('"migrations applied"')) names.push(...(JSON.parse(line) as { applied: string[] }).applied);
  }
  return names;
}

it('applies each migration once when migrate commands and every app start at the same moment on a new database', async () => {
  const name = uniqueName(`cronsvc_test_${testRun}`);
  made.push(name);
  const url = databaseUrl(name);
  const processEnv = env(url);
  const migrations = [migrate(processEnv), migrate(processEnv), migrate(processEnv)];
  const apps = APPS.map((appName) => app(appName, { ...processEnv, PORT: String(20_000 + Math.floor(Math.random() * 20_000)) }));
  for (const m of migrations) expect(await m.exited).toBe(0);
  await waitFor(() => apps.every((a, i) => STARTED[APPS[i]].test(a.output())), {
    timeoutMs: 60_000,
    what: () => `every app to start:\n${apps.map((a) => a.output()).join('\n')}`,
  });

  const expected = (await readMigrations()).map((m) => m.name);
  const rows = await query<{ migration_name: string }>(url, 'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL ORDER BY migration_name');
  expect(rows.map((r) => r.migration_name)).toEqual(expected);
  const said = [...migrations, ...apps].flatMap((p) => appliedBy(p.output()));
  expect(said.sort()).toEqual(expected);
});

describe('a database migrated by a newer version', () => {
  let url: string;
  const FUTURE = ['20991231000000_from_a_newer_version', '20991231000001_and_another'];

  beforeAll(async () => {
    const name = uniqueName(`cronsvc_test_${testRun}`);
    made.push(name);
    url = databaseUrl(name);
    const first = migrate(env(url));
    expect(await first.exited).toBe(0);
    for (const future of FUTURE) {
      await query(url, `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count) VALUES ($1, 'x', $2, now(), 1)`, [
        `${future.slice(0, 30)}-0000`,
        future,
      ]);
    }
  });

  const refusal = new RegExp(`migrations this version of the service does not know: ${FUTURE.join(', ')}`);

  it('makes npm run migrate exit 78 naming them', async () => {
    const m = migrate(env(url));
    expect(await m.exited).toBe(78);
    expect(m.output()).toMatch(refusal);
  });

  it.each(APPS.map((name) => [name]))('makes the %s exit 78 naming them', async (name) => {
    const a = app(name, env(url));
    expect(await a.exited).toBe(78);
    expect(a.output()).toMatch(refusal);
  });

  it('makes npm start exit 78 naming them, before it starts any app', async () => {
    const supervisor = start(['scripts/dist/start.js'], env(url));
    expect(await supervisor.exited).toBe(78);
    expect(supervisor.output()).toMatch(refusal);
    expect(supervisor.output()).not.toMatch(/api listening|started/);
  });
});
