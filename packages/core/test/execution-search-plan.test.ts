import pg from 'pg';
import { createTestDatabase, type TestDatabase } from './test-database.js';

// The execution search must stay fast on a large table: every filter and sort combination of
// GET /v1/executions is planned on an index, never a scan of the whole table. The benchmark
// harness times it on a million rows; this proves the plans on a table large enough for the
// planner to care.

let database: TestDatabase;
let client: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query(`
    INSERT INTO workspaces (id, name, signing_key, updated_at) SELECT 'wsp_' || w, 'w' || w, 'whsec_x', now() FROM generate_series(1, 20) w;
    INSERT INTO jobs (id, workspace_id, name, kind, state, schedule_anchor, retry_policy, max_concurrent_executions, updated_at)
      SELECT 'job_' || j, 'wsp_' || (j % 20 + 1), 'Job number ' || j, 'cron', 'active', now(), '{}', 0, now() FROM generate_series(1, 400) j;
    INSERT INTO executions (id, workspace_id, job_id, job_name, status, source, scheduled_for, next_attempt_at, created_at, updated_at, dead_lettered_at)
      SELECT 'exe_' || e, 'wsp_' || ((e % 400 + 1) % 20 + 1), 'job_' || (e % 400 + 1), 'Job number ' || (e % 400 + 1),
             (ARRAY['queued','running','waiting','succeeded','failed'])[e % 5 + 1], 'schedule',
             now() - (e || ' seconds')::interval, now(), now() - (e || ' seconds')::interval, now(),
             CASE WHEN e % 5 = 4 THEN now() END
        FROM generate_series(1, 200000) e;
    ANALYZE;`);
}, 120_000);
afterAll(async () => {
  await client.end();
  await database.drop();
});

async function plan(sql: string, params: unknown[]): Promise<string> {
  const { rows } = await client.query(`EXPLAIN ${sql}`, params);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

const page = (where: string, order = 'scheduled_for DESC, id DESC') =>
  `SELECT * FROM executions WHERE workspace_id = $1 ${where} ORDER BY ${order} LIMIT 50 OFFSET 0`;

it.each([
  ['no filter', page(''), ['wsp_3']],
  ['status', page('AND status = $2'), ['wsp_3', 'failed']],
  ['status sorted by created_at ascending', page('AND status = $2', 'created_at ASC, id ASC'), ['wsp_3', 'queued']],
  ['a time range', page('AND scheduled_for >= $2 AND scheduled_for <= $3'), ['wsp_3', new Date(Date.now() - 3600_000), new Date()]],
  ['job_name substring', page('AND job_name ILIKE $2'), ['wsp_3', '%number 12%']],
  // job_name is a literal: its %, _ and \ arrive escaped, which the trigram index handles too.
  ['job_name literal with escaped wildcards', page('AND job_name ILIKE $2'), ['wsp_3', '%number\\_1\\%2%']],
  ['one job', `SELECT * FROM executions WHERE workspace_id = $1 AND job_id = $2 ORDER BY scheduled_for DESC, id DESC LIMIT 50`, ['wsp_3', 'job_42']],
  ['dead-letter queue', page('AND dead_lettered_at IS NOT NULL'), ['wsp_3']],
  ['status total', 'SELECT count(*) FROM executions WHERE workspace_id = $1 AND status = $2', ['wsp_3', 'failed']],
])('plans the %s search on an index', async (_what, sql, params) => {
  const text = await plan(sql, params);
  expect(text).not.toMatch(/Seq Scan on executions/);
  expect(text).toMatch(/Index|Bitmap/);
});

it('reads a page of the dead-letter queue from its own index, in order, without a sort', async () => {
  const text = await plan(page('AND dead_lettered_at IS NOT NULL'), ['wsp_3']);
  expect(text).toMatch(/executions_dlq_page_idx/);
  expect(text).not.toMatch(/Sort/);
});
