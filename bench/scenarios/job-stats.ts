// job-stats: GET /v1/jobs/:id/stats?window=24h|7d|30d through the public API over a large stored
// history (docs/EXECUTIONS.md, "Statistics"). At each size the history is seeded straight into the
// database (harness/history.ts: clones of executions the service ran, 1,000 jobs, 2% failed, over
// the last 30 days, durations spread evenly over a range), and the hourly rollup the answers come
// from is rebuilt from those executions with the service's own upsert (rollupWrite) and duration
// classes (durationClass), so it holds exactly what the executor would have written had it
// recorded each of them. Each window is then read at a paced rate, round the first `jobs` jobs,
// from a load process of its own; a few answers are checked against counts read straight from the
// executions. Judged: p99 of every window at the largest size.
import os from 'node:os';
import { durationClass, rollupWrite } from '@cronsvc/core';
import { ensureService, type BenchContext } from '../harness/context.js';
import { ensureHistory, type HistoryMix } from '../harness/history.js';
import { runLoad } from '../harness/load-process.js';
import { resetServiceData } from '../harness/seed.js';
import type { Service } from '../harness/service.js';
import type { LoadRun } from '../load/load.js';
import { countMismatches, mean, type CountCheck } from '../lib/job-stats.js';
import { summarizeLoad, type LoadResult } from '../lib/load.js';
import { TARGETS } from '../lib/params.js';
import { formatLoadAverage } from '../lib/scaling.js';
import type { Figure } from '../lib/verdict.js';
import type { ScenarioResult } from './types.js';

const SCENARIO = 'job-stats';
const WINDOWS = ['24h', '7d', '30d'] as const;
type Window = (typeof WINDOWS)[number];
/** As the scaling scenario's history: 2% of the executions failed. */
const HISTORY_MIX: HistoryMix = { failedPerMille: 20, deadLetteredPerMille: 5 };
/** Jobs whose answers are checked against the executions, per window. */
const CHECKED_JOBS = 3;
const count = (n: number) => n.toLocaleString('en-US');
const fig = (name: string, value: number | null, unit: string, extra: Partial<Figure> = {}): Figure => ({ scenario: SCENARIO, name, value, unit, ...extra });

interface StatsAnswer {
  executions: number;
  failed: number;
  buckets: { start: string }[];
}

/**
 * Empties the rollup and fills it from every execution that ended, with the statement the
 * executor adds to each recording (one upsert per job, hour and duration class).
 */
async function rebuildRollup(ctx: BenchContext): Promise<{ rows: number; ms: number }> {
  const started = Date.now();
  const client = await ctx.pool.connect();
  try {
    // Grouping ten million executions in the default 4 MB spills to disk many times over.
    await client.query(`SET work_mem = '256MB'`);
    await client.query('TRUNCATE job_stats_hourly');
    // The classes of the durations there are, computed by the service's own function.
    const { rows } = await client.query<{ d: number }>(`SELECT DISTINCT duration_ms AS d FROM executions WHERE status IN ('succeeded', 'failed') AND duration_ms IS NOT NULL`);
    const durations = rows.map((r) => r.d);
    const source = `SELECT e.job_id, e.finished_at AS at, e.status = 'failed' AS failed, c.duration_class
      FROM executions AS e JOIN unnest($1::int[], $2::int[]) AS c (duration_ms, duration_class) ON c.duration_ms = e.duration_ms
     WHERE e.status IN ('succeeded', 'failed')`;
    await client.query(`WITH ${rollupWrite('rolled', source)} SELECT 1`, [durations, durations.map(durationClass)]);
  } finally {
    await client.query('RESET work_mem').catch(() => undefined);
    client.release();
  }
  await ctx.pool.query('VACUUM ANALYZE job_stats_hourly');
  const rows = (await ctx.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM job_stats_hourly')).rows[0].n;
  return { rows, ms: Date.now() - started };
}

async function answer(ctx: BenchContext, service: Service, jobId: string, window: Window): Promise<StatsAnswer> {
  const res = await fetch(`${service.baseUrl}/v1/jobs/${jobId}/stats?window=${window}`, { headers: { authorization: `Bearer ${ctx.apiToken}` } });
  if (!res.ok) throw new Error(`GET /v1/jobs/${jobId}/stats?window=${window} answered ${res.status}`);
  return (await res.json()) as StatsAnswer;
}

/**
 * Every window's answer for the first CHECKED_JOBS jobs beside a count of their executions that
 * ended since the window's first bucket; and the rollup rows a query of each window reads, on
 * average over the measured jobs.
 */
async function checkAnswers(ctx: BenchContext, service: Service, jobIds: string[]): Promise<{ checks: CountCheck[]; rowsRead: Record<Window, number | null> }> {
  const checks: CountCheck[] = [];
  const rowsRead = {} as Record<Window, number | null>;
  for (const window of WINDOWS) {
    let since: string | null = null;
    for (const jobId of jobIds.slice(0, CHECKED_JOBS)) {
      const api = await answer(ctx, service, jobId, window);
      since = api.buckets[0].start;
      const { rows } = await ctx.pool.query<{ executions: number; failed: number }>(
        `SELECT count(*)::int AS executions, (count(*) FILTER (WHERE status = 'failed'))::int AS failed
           FROM executions WHERE job_id = $1 AND status IN ('succeeded', 'failed') AND finished_at >= $2`,
        [jobId, since],
      );
      checks.push({ label: `${jobId}, ${window}`, api: { executions: api.executions, failed: api.failed }, direct: rows[0] });
    }
    const { rows } = await ctx.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM job_stats_hourly WHERE job_id = ANY($1) AND hour >= $2 GROUP BY job_id`, [jobIds, since]);
    rowsRead[window] = mean(rows.map((r) => r.n));
  }
  return { checks, rowsRead };
}

/** Each window at the paced rate, request i to job i mod jobs; from a load process of its own. */
async function measure(ctx: BenchContext, service: Service, label: string, jobIds: string[]): Promise<{ name: string; window: Window; result: LoadResult | null }[]> {
  const p = ctx.params.jobStats;
  const headers = { authorization: `Bearer ${ctx.apiToken}` };
  const runs: (LoadRun & { window: Window })[] = WINDOWS.map((window) => {
    const urls = jobIds.map((id) => `${service.baseUrl}/v1/jobs/${id}/stats?window=${window}`);
    return { name: `${label}: GET /v1/jobs/:id/stats?window=${window}`, window, url: urls[0], urls, method: 'GET' as const, headers, connections: 10, durationSeconds: p.durationSeconds, warmupSeconds: 1, overallRate: p.rate, paced: true };
  });
  const results = await runLoad('stats-load', runs, runs.length * (p.durationSeconds + 20) * 1000 + 30_000);
  return runs.map((run) => ({ name: run.name, window: run.window, result: results.find((r) => r.name === run.name)?.result ?? null }));
}

function loadFigure(when: string, loadavg: number[]): Figure {
  return fig(`machine load average at ${when} (1 min)`, loadavg[0], '', { note: `1, 5, 15 min as uptime prints them: ${formatLoadAverage(loadavg)}; ${os.cpus().length} cpus` });
}

export async function jobStats(ctx: BenchContext): Promise<ScenarioResult> {
  const p = ctx.params.jobStats;
  const sizes = p.executions;
  if (sizes.length === 0 || sizes.some((n, i) => i > 0 && n <= sizes[i - 1])) throw new Error(`stored executions must be growing sizes, got ${sizes.join(', ')}`);
  const loadAtStart = os.loadavg();
  const service = await ensureService(ctx);
  const figures: Figure[] = [loadFigure('start', loadAtStart)];
  const details: Record<string, unknown> = {};
  for (const size of sizes) {
    const label = `${count(size)} stored executions (seeded)`;
    // Each size is seeded afresh over the same 30 days: a busier workspace, not an older one.
    // (Adding to the smaller history instead would clone fires onto the same job and millisecond
    // now and then, which the unique fire_key refuses.)
    await resetServiceData(ctx.pool);
    const seeded = await ensureHistory(ctx, size, { mix: HISTORY_MIX, bulk: true, durationMs: p.durationMs });
    const stored = (await ctx.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions`)).rows[0].n;
    ctx.log(`${SCENARIO}: ${label}: rebuilding the rollup from ${count(stored)} executions`);
    const rollup = await rebuildRollup(ctx);
    const { rows } = await ctx.pool.query<{ id: string }>(`SELECT id FROM jobs WHERE name LIKE 'history-%' ORDER BY name LIMIT $1`, [p.jobs]);
    const jobIds = rows.map((r) => r.id);
    const { checks, rowsRead } = await checkAnswers(ctx, service, jobIds);
    const problems = countMismatches(checks);
    if (problems.length > 0) ctx.log(`${SCENARIO}: ${label}: ${problems.join('; ')}`);
    const largest = size === sizes[sizes.length - 1];
    figures.push(
      fig(`${label}: rollup rows`, rollup.rows, '', {
        problems,
        note: `${count(stored)} executions; seeded in ${Math.round((seeded.insertMs + seeded.rebuildMs + seeded.vacuumMs) / 1000)} s, rollup rebuilt in ${Math.round(rollup.ms / 1000)} s; ${checks.length} answers checked against the executions`,
      }),
    );
    const measured = await measure(ctx, service, label, jobIds);
    service.assertAlive();
    for (const m of measured) {
      const s = m.result ? summarizeLoad(m.result, { requestedRate: p.rate }) : { p50: null, p99: null, problems: ['no result'], shortfall: null };
      const read = rowsRead[m.window];
      const note = [`p50 ${s.p50 === null ? 'n/a' : Math.round(s.p50)} ms`, `${p.rate} req/s round ${jobIds.length} jobs`, read === null ? null : `${Math.round(read)} rollup rows per answer`, s.shortfall]
        .filter(Boolean)
        .join('; ');
      figures.push(
        fig(`${m.name} p50`, s.p50, 'ms', { problems: [...problems, ...s.problems] }),
        fig(`${m.name} p99`, s.p99, 'ms', { problems: [...problems, ...s.problems], note, ...(largest ? { target: TARGETS.jobStatsP99Ms, unmet: s.shortfall ?? undefined } : {}) }),
      );
    }
    // Said now as well: the larger sizes take long enough that a run may be stopped before its table.
    const said = measured.map((m) => (m.result ? `${m.window} p50 ${Math.round(m.result.latency.p50)} ms, p99 ${Math.round(m.result.latency.p99)} ms` : `${m.window} no result`));
    ctx.log(`${SCENARIO}: ${label}: ${said.join('; ')} (load average ${formatLoadAverage(os.loadavg())})`);
    details[`executions_${size}`] = { seeded, stored, rollup, rowsRead, checks, load: measured };
  }
  const loadAtEnd = os.loadavg();
  figures.push(loadFigure('end', loadAtEnd));
  // Ten million executions take gigabytes: none of it is left to the scenarios after this one.
  await resetServiceData(ctx.pool);
  return {
    figures,
    parameters: { ...p, historyMix: HISTORY_MIX, checkedJobs: CHECKED_JOBS, loadAverage: { start: loadAtStart, end: loadAtEnd } },
    details,
  };
}
