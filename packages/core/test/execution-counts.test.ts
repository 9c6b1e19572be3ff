import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { countExecutions } from '../src/executions/count-executions.js';
import { listExecutions } from '../src/executions/list-executions.js';
import { createDb, type Db } from '../src/db/client.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { repoRoot } from './test-context.js';

// The execution totals of GET /v1/executions come from counters kept by triggers; whatever
// writes executions (single rows, batches, cascades, concurrent transactions), they must
// equal what count(*) says.

let database: TestDatabase;
let client: pg.Client;
let db: Db;

const STATUSES = ['queued', 'running', 'waiting', 'succeeded', 'failed'];

beforeAll(async () => {
  database = await createTestDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  db = createDb(database.url, { max: 12 });
  await client.query(`
    INSERT INTO workspaces (id, name, signing_key, updated_at) VALUES ('wsp_a', 'a', 'whsec_x', now()), ('wsp_b', 'b', 'whsec_x', now());
    INSERT INTO jobs (id, workspace_id, name, kind, state, schedule_anchor, retry_policy, max_concurrent_executions, updated_at)
      SELECT 'job_' || j, CASE WHEN j <= 6 THEN 'wsp_a' ELSE 'wsp_b' END, 'job ' || j, 'cron', 'active', now(), '{}', 0, now()
        FROM generate_series(1, 10) j;`);
});
afterAll(async () => {
  await db.$disconnect();
  await client.end();
  await database.drop();
});

/** Inserts `n` executions spread over the jobs, `status` for all, in one statement. */
async function insert(n: number, status: string, prefix: string): Promise<void> {
  await client.query(
    `INSERT INTO executions (id, workspace_id, job_id, job_name, status, source, scheduled_for, next_attempt_at, updated_at)
     SELECT $1 || e, j.workspace_id, j.id, j.name, $2, 'manual', now(), now(), now()
       FROM generate_series(1, $3::int) e JOIN jobs j ON j.id = 'job_' || (e % 10 + 1)`,
    [prefix, status, n],
  );
}

/** The counters and count(*) side by side, for every key either knows. */
async function compare(): Promise<{ counters: Record<string, number>; actual: Record<string, number> }> {
  const counters = await client.query<{ key: string; n: string }>(`SELECT workspace_id || '/' || status AS key, sum(n) AS n FROM execution_counts GROUP BY 1 HAVING sum(n) <> 0`);
  const actual = await client.query<{ key: string; n: string }>(`SELECT workspace_id || '/' || status AS key, count(*) AS n FROM executions GROUP BY workspace_id, status`);
  const map = (rows: { key: string; n: string }[]) => Object.fromEntries(rows.map((r) => [r.key, Number(r.n)]));
  return { counters: map(counters.rows), actual: map(actual.rows) };
}

async function expectExact(): Promise<void> {
  const { counters, actual } = await compare();
  expect(Object.keys(actual).length).toBeGreaterThan(0);
  expect(counters).toEqual(actual);
}

it('counts single-row and many-row inserts', async () => {
  await insert(1, 'queued', 'exe_one_');
  await insert(500, 'queued', 'exe_many_');
  await expectExact();
});

it('moves counts between statuses on updates, and ignores updates that keep the status', async () => {
  await client.query(`UPDATE executions SET status = 'running' WHERE id LIKE 'exe_many_%' AND id < 'exe_many_3'`);
  await client.query(`UPDATE executions SET status = 'succeeded' WHERE id LIKE 'exe_many_1%'`);
  await client.query(`UPDATE executions SET status = 'failed', dead_lettered_at = now() WHERE id LIKE 'exe_many_2%'`);
  await client.query(`UPDATE executions SET updated_at = now()`);
  await client.query(`UPDATE executions SET status = 'waiting' WHERE id = 'exe_one_1'`);
  await expectExact();
});

it('subtracts deleted rows, also when a job delete cascades to its executions', async () => {
  await client.query(`DELETE FROM executions WHERE id LIKE 'exe_many_19%'`);
  await client.query(`DELETE FROM jobs WHERE id = 'job_3'`);
  await expectExact();
});

it('stays exact under concurrent transactions touching the same counters', async () => {
  await insert(400, 'queued', 'exe_race_');
  await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      db.$executeRawUnsafe(
        `UPDATE executions SET status = $1 WHERE id IN (SELECT 'exe_race_' || e FROM generate_series($2::int, $2::int + 9) e)`,
        STATUSES[i % STATUSES.length],
        i * 10 + 1,
      ),
    ),
  );
  await Promise.all(Array.from({ length: 10 }, (_, i) => db.$executeRawUnsafe(`DELETE FROM executions WHERE id = $1`, `exe_race_${i * 40 + 5}`)));
  await expectExact();
});

it('answers totals for a workspace and a status, and the listings report them', async () => {
  const actual = async (where: string, params: unknown[]) => Number((await client.query(`SELECT count(*) AS n FROM executions WHERE ${where}`, params)).rows[0].n);
  expect(await countExecutions(db, { workspaceId: 'wsp_a' })).toBe(await actual('workspace_id = $1', ['wsp_a']));
  expect(await countExecutions(db, { workspaceId: 'wsp_a', status: 'succeeded' })).toBe(await actual('workspace_id = $1 AND status = $2', ['wsp_a', 'succeeded']));
  expect(await countExecutions(db, { workspaceId: 'wsp_none' })).toBe(0);
  const page = await listExecutions({ db }, 'wsp_b', { status: 'running', limit: '5' });
  expect(page.total).toBe(await actual('workspace_id = $1 AND status = $2', ['wsp_b', 'running']));
  expect(page.total).toBeGreaterThan(5);
  expect(page.data).toHaveLength(5);
  const ofJob = await listExecutions({ db }, 'wsp_b', { status: 'queued' }, 'job_8');
  expect(ofJob.total).toBe(await actual('job_id = $1 AND status = $2', ['job_8', 'queued']));
});

it('backfills the counters of executions that predate the migration', async () => {
  const migrations = await Promise.all(
    ['20261123000000_execution_counts', '20261125000001_sharded_execution_counts'].map((name) => readFile(path.join(repoRoot, 'prisma/migrations', name, 'migration.sql'), 'utf8')),
  );
  await client.query(`DROP TABLE execution_counts; DROP FUNCTION execution_counts_apply() CASCADE`);
  await insert(50, 'succeeded', 'exe_before_');
  for (const migration of migrations) await client.query(migration);
  await expectExact();
});
