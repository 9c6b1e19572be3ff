// A stored execution history of any size, for the footprint and api scenarios. Rows are clones
// of one real execution (and its attempt) that the service itself ran and recorded, so every
// column, NOT NULL or not, holds what the executor really writes; only ids, job and times vary.
// Clones are spread over 1,000 jobs and the last 30 days.
import { ensureService, sleep, type BenchContext } from './context.js';
import { jobShape, seedJobs, seedManualExecutions, seedOneTimeJobs, sqlId, workspaceId } from './seed.js';

const HISTORY_JOBS = 1_000;
const CHUNK = 50_000;
const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

async function historyCount(ctx: BenchContext): Promise<number> {
  const r = await ctx.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions e JOIN jobs j ON j.id = e.job_id WHERE j.name LIKE 'history-%'`);
  return r.rows[0].n;
}

/** A real succeeded execution with one attempt, run through the service if there is none. */
async function templateExecution(ctx: BenchContext): Promise<string> {
  const find = async () =>
    (
      await ctx.pool.query<{ id: string }>(
        `SELECT e.id FROM executions e JOIN attempts a ON a.execution_id = e.id
          WHERE e.status = 'succeeded' AND e.attempt_count = 1 LIMIT 1`,
      )
    ).rows[0]?.id;
  const found = await find();
  if (found) return found;
  await ensureService(ctx);
  const ws = await workspaceId(ctx.pool);
  const jobs = await seedOneTimeJobs(ctx.pool, { workspaceId: ws, targetUrl: ctx.target.url, count: 1, namePrefix: 'template-' });
  const [exe] = await seedManualExecutions(ctx.pool, { jobs, count: 1 });
  await ctx.queues.enqueueExecutions([{ executionId: exe.id, attempt: 1, runAt: exe.scheduledFor }]);
  for (let i = 0; i < 120; i++) {
    const id = await find();
    if (id) return id;
    await sleep(250);
  }
  throw new Error('the template execution did not succeed within 30 s');
}

async function columns(ctx: BenchContext, table: string): Promise<string[]> {
  const r = await ctx.pool.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  );
  return r.rows.map((c) => c.column_name);
}

/** Makes sure at least `n` history executions exist; returns how many were added. */
export async function ensureHistory(ctx: BenchContext, n: number): Promise<number> {
  const have = await historyCount(ctx);
  if (have >= n) return 0;
  const template = await templateExecution(ctx);
  await ctx.pool.query(`DROP TABLE IF EXISTS bench_tpl_exe, bench_tpl_att`);
  await ctx.pool.query(`CREATE TABLE bench_tpl_exe AS SELECT * FROM executions WHERE id = $1`, [template]);
  await ctx.pool.query(`CREATE TABLE bench_tpl_att AS SELECT * FROM attempts WHERE execution_id = $1`, [template]);
  const jobCount = (await ctx.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM jobs WHERE name LIKE 'history-%'`)).rows[0].n;
  if (jobCount === 0) {
    await seedJobs(ctx.pool, {
      workspaceId: await workspaceId(ctx.pool),
      count: HISTORY_JOBS,
      namePrefix: 'history-',
      kind: 'recurring',
      state: 'paused',
      shape: jobShape(ctx.target.url),
      nextRunAtSql: 'NULL',
      scheduleSql: `'{"every_n_minutes": 60}'::jsonb`,
    });
  }
  const exeOverrides: Record<string, string> = {
    id: 'x.new_id',
    job_id: 'h.ids[1 + x.i % h.n]',
    job_name: 'h.names[1 + x.i % h.n]',
    source: `'schedule'`,
    scheduled_for: 'x.at',
    fire_key: `h.ids[1 + x.i % h.n] || '@' || to_char(x.at AT TIME ZONE 'UTC', ${ISO})`,
    next_attempt_at: 'x.at',
    created_at: 'x.at',
    updated_at: `x.at + interval '40 milliseconds'`,
    started_at: `x.at + interval '2 milliseconds'`,
    finished_at: `x.at + interval '40 milliseconds'`,
    locked_until: 'NULL',
  };
  const attOverrides: Record<string, string> = {
    execution_id: 'ins.id',
    started_at: `ins.scheduled_for + interval '2 milliseconds'`,
    created_at: `ins.scheduled_for + interval '40 milliseconds'`,
  };
  const exeCols = await columns(ctx, 'executions');
  const attCols = await columns(ctx, 'attempts');
  const q = (c: string) => `"${c}"`;
  const sql = `
    WITH h AS (SELECT array_agg(id ORDER BY name) AS ids, array_agg(name ORDER BY name) AS names, count(*)::int AS n
                 FROM jobs WHERE name LIKE 'history-%'),
         x AS (SELECT i, ${sqlId('exe')} AS new_id,
                      date_trunc('milliseconds', now() - (i::float8 / $3::float8) * interval '30 days') AS at
                 FROM generate_series($1::int, $2::int) AS i),
         ins AS (INSERT INTO executions (${exeCols.map(q).join(', ')})
                 SELECT ${exeCols.map((c) => exeOverrides[c] ?? `t.${q(c)}`).join(', ')} FROM x, h, bench_tpl_exe AS t
                 ON CONFLICT DO NOTHING
                 RETURNING id, scheduled_for)
    INSERT INTO attempts (${attCols.map(q).join(', ')})
    SELECT ${attCols.map((c) => attOverrides[c] ?? `a.${q(c)}`).join(', ')} FROM ins, bench_tpl_att AS a`;
  const started = Date.now();
  ctx.log(`seeding ${(n - have).toLocaleString('en-US')} history executions (clones of ${template})`);
  for (let from = have + 1; from <= n; from += CHUNK) {
    await ctx.pool.query(sql, [from, Math.min(n, from + CHUNK - 1), n]);
  }
  // What autovacuum would have done on a live database: visibility map and planner statistics.
  await ctx.pool.query('VACUUM ANALYZE executions');
  await ctx.pool.query('VACUUM ANALYZE attempts');
  ctx.log(`history seeded in ${Math.round((Date.now() - started) / 1000)} s`);
  return n - have;
}
