// A stored execution history of any size, for the footprint, api and scaling scenarios. Rows are
// clones of real executions (and their attempts) that the service itself ran and recorded, so
// every column, NOT NULL or not, holds what the executor really writes; only ids, job, times and
// the dead-letter mark vary. Clones are spread over 1,000 jobs, one every 30 days / plannedTotal
// back from now.
import { ensureService, sleep, type BenchContext } from './context.js';
import { withIndexesRebuiltAfter } from './bulk-load.js';
import { failingJobShape, jobShape, seedJobs, seedManualExecutions, seedOneTimeJobs, sqlId, workspaceId } from './seed.js';

const HISTORY_JOBS = 1_000;
const CHUNK = 50_000;
const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/**
 * What the history holds besides successes. A failed execution is one that failed its only
 * attempt; the executor dead-letters every failure, and removing or replaying it clears the mark,
 * so of the failed ones only `deadLetteredPerMille` (of all executions) are still in the DLQ.
 */
export interface HistoryMix {
  failedPerMille: number;
  deadLetteredPerMille: number;
}

export interface HistoryOptions {
  mix?: HistoryMix;
  /**
   * The size the history will reach over several calls: row i is created i * 30 days /
   * plannedTotal ago, so a smaller history seeded first is the most recent part of the larger
   * one (the same workspace, younger) and no two calls clone the same fire. Default: n.
   */
  plannedTotal?: number;
  /**
   * Load with the indexes and keys of executions and attempts dropped, two batches at a time,
   * and rebuild them afterwards (bulk-load.ts): several times faster for millions of rows, but
   * the indexes come out packed tighter than a live table's.
   */
  bulk?: boolean;
  /**
   * Each clone's duration (finished_at - started_at, and duration_ms) drawn evenly from this range
   * of whole ms, a fixed pseudo-random draw per row. Default: every clone keeps its template's
   * duration_ms, and starts and finishes 38 ms apart.
   */
  durationMs?: { min: number; max: number };
}

export interface HistoryReport {
  added: number;
  /** Inserting the rows into both tables. */
  insertMs: number;
  /** Rebuilding the indexes and keys after a bulk load; 0 otherwise. */
  rebuildMs: number;
  /** VACUUM ANALYZE of both tables afterwards. */
  vacuumMs: number;
}

async function historyCount(ctx: BenchContext): Promise<number> {
  const r = await ctx.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions e JOIN jobs j ON j.id = e.job_id WHERE j.name LIKE 'history-%'`);
  return r.rows[0].n;
}

/** A real execution with the given status and one attempt, run through the service if there is none. */
async function templateExecution(ctx: BenchContext, status: 'succeeded' | 'failed'): Promise<string> {
  const find = async () =>
    (
      await ctx.pool.query<{ id: string }>(
        `SELECT e.id FROM executions e JOIN attempts a ON a.execution_id = e.id
          WHERE e.status = $1 AND e.attempt_count = 1 LIMIT 1`,
        [status],
      )
    ).rows[0]?.id;
  const found = await find();
  if (found) return found;
  await ensureService(ctx);
  const ws = await workspaceId(ctx.pool);
  const shape = status === 'failed' ? failingJobShape(ctx.target.url) : jobShape(ctx.target.url);
  const jobs = await seedOneTimeJobs(ctx.pool, { workspaceId: ws, targetUrl: ctx.target.url, count: 1, namePrefix: `template-${status}-`, shape });
  const [exe] = await seedManualExecutions(ctx.pool, { jobs, count: 1 });
  await ctx.queues.enqueueExecutions([{ executionId: exe.id, attempt: 1, runAt: exe.scheduledFor }]);
  for (let i = 0; i < 120; i++) {
    const id = await find();
    if (id) return id;
    await sleep(250);
  }
  throw new Error(`the ${status} template execution did not finish within 30 s`);
}

async function columns(ctx: BenchContext, table: string): Promise<string[]> {
  const r = await ctx.pool.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  );
  return r.rows.map((c) => c.column_name);
}

/** Makes sure at least `n` history executions exist; says how many were added and how long it took. */
export async function ensureHistory(ctx: BenchContext, n: number, options: HistoryOptions = {}): Promise<HistoryReport> {
  const mix = options.mix ?? { failedPerMille: 0, deadLetteredPerMille: 0 };
  const plannedTotal = Math.max(n, options.plannedTotal ?? n);
  const have = await historyCount(ctx);
  if (have >= n) return { added: 0, insertMs: 0, rebuildMs: 0, vacuumMs: 0 };
  const templates = [await templateExecution(ctx, 'succeeded'), ...(mix.failedPerMille > 0 ? [await templateExecution(ctx, 'failed')] : [])];
  await ctx.pool.query(`DROP TABLE IF EXISTS bench_tpl_exe, bench_tpl_att`);
  await ctx.pool.query(`CREATE TABLE bench_tpl_exe AS SELECT * FROM executions WHERE id = ANY($1)`, [templates]);
  // Each template's attempt, keyed by its execution's status, which is what a clone is made from.
  await ctx.pool.query(`CREATE TABLE bench_tpl_att AS SELECT a.*, e.status AS tpl_status FROM attempts a JOIN executions e ON e.id = a.execution_id WHERE e.id = ANY($1)`, [templates]);
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
    dead_lettered_at: `CASE WHEN x.draw < $5 THEN x.at + interval '40 milliseconds' END`,
  };
  const spread = options.durationMs;
  if (spread) {
    if (!(Number.isInteger(spread.min) && Number.isInteger(spread.max) && spread.min >= 0 && spread.max >= spread.min)) throw new Error(`durationMs must be whole ms, min <= max, got ${JSON.stringify(spread)}`);
    // A second fixed draw per row, independent of x.draw (which decides failures).
    const ms = `(${spread.min} + mod(hashint8(x.i::bigint)::bigint + 2147483648, ${spread.max - spread.min + 1}))::int`;
    const ended = `x.at + interval '2 milliseconds' + ${ms} * interval '1 millisecond'`;
    Object.assign(exeOverrides, {
      duration_ms: ms,
      finished_at: ended,
      updated_at: ended,
      dead_lettered_at: `CASE WHEN x.draw < $5 THEN ${ended} END`,
    });
  }
  const attOverrides: Record<string, string> = {
    execution_id: 'ins.id',
    started_at: `ins.scheduled_for + interval '2 milliseconds'`,
    created_at: `ins.scheduled_for + interval '40 milliseconds'`,
  };
  const exeCols = await columns(ctx, 'executions');
  const attCols = await columns(ctx, 'attempts');
  const q = (c: string) => `"${c}"`;
  // x.draw is a fixed pseudo-random 0..999 per row (not i % 1000, which is the job), so the
  // failures and dead letters fall on every job alike.
  const sql = `
    WITH h AS (SELECT array_agg(id ORDER BY name) AS ids, array_agg(name ORDER BY name) AS names, count(*)::int AS n
                 FROM jobs WHERE name LIKE 'history-%'),
         x AS (SELECT i, ${sqlId('exe')} AS new_id, mod(hashint4(i)::bigint + 2147483648, 1000) AS draw,
                      date_trunc('milliseconds', now() - (i::float8 / $3::float8) * interval '30 days') AS at
                 FROM generate_series($1::int, $2::int) AS i),
         ins AS (INSERT INTO executions (${exeCols.map(q).join(', ')})
                 SELECT ${exeCols.map((c) => exeOverrides[c] ?? `t.${q(c)}`).join(', ')} FROM x, h, bench_tpl_exe AS t
                  WHERE t.status = CASE WHEN x.draw < $4 THEN 'failed' ELSE 'succeeded' END
                 ON CONFLICT DO NOTHING
                 RETURNING id, scheduled_for, status)
    INSERT INTO attempts (${attCols.map(q).join(', ')})
    SELECT ${attCols.map((c) => attOverrides[c] ?? `a.${q(c)}`).join(', ')} FROM ins JOIN bench_tpl_att AS a ON a.tpl_status = ins.status`;
  const ranges: [number, number][] = [];
  for (let from = have + 1; from <= n; from += CHUNK) ranges.push([from, Math.min(n, from + CHUNK - 1)]);
  const insertBatches = async (parallel: number) => {
    const next = () => ranges.shift();
    const worker = async () => {
      for (let r = next(); r; r = next()) await ctx.pool.query(sql, [r[0], r[1], plannedTotal, mix.failedPerMille, mix.deadLetteredPerMille]);
    };
    await Promise.all(Array.from({ length: parallel }, worker));
  };
  ctx.log(`seeding ${(n - have).toLocaleString('en-US')} history executions (clones of ${templates.join(', ')})${options.bulk ? ', indexes rebuilt after' : ''}`);
  const started = Date.now();
  let insertMs = 0;
  const load = async (parallel: number) => {
    await insertBatches(parallel);
    insertMs = Date.now() - started;
  };
  const rebuildMs = options.bulk ? (await withIndexesRebuiltAfter(ctx.pool, ['executions', 'attempts'], () => load(2))).rebuildMs : (await load(1), 0);
  const vacuumStarted = Date.now();
  // What autovacuum would have done on a live database: visibility map and planner statistics.
  await ctx.pool.query('VACUUM ANALYZE executions');
  await ctx.pool.query('VACUUM ANALYZE attempts');
  const vacuumMs = Date.now() - vacuumStarted;
  ctx.log(`history seeded: inserted in ${Math.round(insertMs / 1000)} s${options.bulk ? `, indexes rebuilt in ${Math.round(rebuildMs / 1000)} s` : ''}, vacuumed in ${Math.round(vacuumMs / 1000)} s`);
  return { added: n - have, insertMs, rebuildMs, vacuumMs };
}
