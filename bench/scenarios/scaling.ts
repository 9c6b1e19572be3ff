// scaling: does cost grow as it should? Two series, each measured at every size with the service
// as ensureService starts it, and judged between its smallest and largest size:
// - active schedules (seeded: half cron, half recurring, all daily). Each size adds the same
//   number of schedules due inside its measurement window (so the scheduler has the same work
//   per window at every size) and the rest 10 minutes to 23 hours ahead. Measured: fire lag of a
//   fixed set of one-shot probe jobs due evenly over the window, the scheduler's and Postgres's
//   CPU with nothing due, Postgres bytes per job row, and executions/s of a fixed burst of
//   one_time jobs created through POST /v1/jobs (the api-e2e load process).
// - stored executions (seeded: clones of a real succeeded and a real failed execution, with one
//   attempt each; a few failed, fewer still dead-lettered), the history of one busy workspace at
//   two ages. Measured: the same probes and burst, the paced latency of GET /v1/executions?limit=50
//   and GET /v1/dlq?limit=50, and Postgres bytes per execution with its attempt.
import os from 'node:os';
import { cpuWindow, ensureService, postgresTicks, postgresTicksBetween, serviceSetting, sleep, type BenchContext } from '../harness/context.js';
import { runE2eLoad } from '../harness/e2e-load.js';
import { ensureHistory, type HistoryMix } from '../harness/history.js';
import { CLOCK_TICKS_PER_SECOND } from '../harness/processes.js';
import { runLoad } from '../harness/load-process.js';
import { jobShape, resetServiceData, seedDailySchedules, seedJobs, workspaceId, type SeededJob } from '../harness/seed.js';
import type { Service } from '../harness/service.js';
import type { ClosedResult } from '../load/e2e.js';
import type { LoadRun } from '../load/load.js';
import { analyseFires, type FireReport } from '../lib/lag.js';
import { summarizeLoad } from '../lib/load.js';
import { LATENCY_GROWTH, TARGETS } from '../lib/params.js';
import { formatLoadAverage, latencyGrowthFigure, perUnitGrowth, schedulePlan, slotsOver } from '../lib/scaling.js';
import { derived, type Figure } from '../lib/verdict.js';
import type { ScenarioResult } from './types.js';

const SCENARIO = 'scaling';
/** 2% of the stored executions failed; a quarter of those are still in the dead-letter queue. */
const HISTORY_MIX: HistoryMix = { failedPerMille: 20, deadLetteredPerMille: 5 };
const count = (n: number) => n.toLocaleString('en-US');
const fig = (name: string, value: number | null, unit: string, extra: Partial<Figure> = {}): Figure => ({ scenario: SCENARIO, name, value, unit, ...extra });

interface WindowResult {
  probes: FireReport;
  background: FireReport | null;
  /** Postgres bytes per job row, taken once everything of the window is seeded and before it fires. */
  jobs: { bytes: number; rows: number };
}

/**
 * Seeds `background` daily schedules and the probes, all due over one window that starts once
 * they are seeded, waits for every fire, and joins what the target received to the slots.
 */
async function fireWindow(ctx: BenchContext, service: Service, label: string, background: number): Promise<WindowResult> {
  const p = ctx.params.scaling;
  await ctx.target.reset();
  const ws = await workspaceId(ctx.pool);
  const shape = jobShape(ctx.target.url);
  const lookahead = serviceSetting(ctx, 'SCHEDULER_LOOKAHEAD_MS', 5_000);
  const tick = serviceSetting(ctx, 'SCHEDULER_TICK_MS', 500);
  // Far enough ahead that the window enters the scheduler's lookahead only after the seeding and
  // the size reading below are done.
  const start = Math.ceil((Date.now() + lookahead + tick + 2_500 + (background + p.probes) / 10) / 1000) * 1000;
  const backgroundSlots = slotsOver(start, p.windowMs, background);
  const seededBackground: SeededJob[] =
    background > 0
      ? await seedDailySchedules(ctx.pool, {
          workspaceId: ws,
          shape,
          count: background,
          namePrefix: `scaling-firing-${label}-`,
          nextRunAtSql: `to_timestamp(($8::float8[])[i] / 1000.0)`,
          params: [backgroundSlots],
          returning: true,
        })
      : [];
  const probeSlots = slotsOver(start, p.windowMs, p.probes);
  const probes = await seedJobs(ctx.pool, {
    workspaceId: ws,
    count: p.probes,
    namePrefix: `scaling-probe-${label}-`,
    kind: 'scheduled',
    state: 'active',
    shape,
    nextRunAtSql: `to_timestamp(($8::float8[])[i] / 1000.0)`,
    scheduleSql: `jsonb_build_object('run_at', to_char(s.t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`,
    params: [probeSlots],
    returning: true,
  });
  await ctx.pool.query('ANALYZE jobs');
  const jobs = await tableBytes(ctx, ['jobs'], `SELECT count(*)::bigint AS n FROM jobs`);
  if (Date.now() > start - lookahead) ctx.log(`${SCENARIO}: warning: ${label}: seeding ended inside the lookahead window`);

  const lastSlot = Math.max(...probeSlots, ...backgroundSlots);
  const deadline = lastSlot + p.graceMs;
  const expected = p.probes + background;
  for (;;) {
    service.assertAlive();
    const stats = await ctx.target.stats();
    if ((stats.distinct >= expected && Date.now() > lastSlot) || Date.now() > deadline) break;
    await sleep(250);
  }
  await sleep(1_000);
  const arrivals = await ctx.target.arrivals();
  const jobIds = [...probes, ...seededBackground].map((j) => j.id);
  // By job: the stored history may hold millions of other executions.
  const rows = await ctx.pool.query<{ id: string; job_id: string; at: number }>(
    `SELECT id, job_id, (extract(epoch FROM scheduled_for) * 1000)::float8 AS at FROM executions WHERE job_id = ANY($1)`,
    [jobIds],
  );
  const executions = rows.rows.map((r) => ({ id: r.id, jobId: r.job_id, scheduledFor: Math.round(r.at) }));
  const slotsOf = (seeded: SeededJob[]) => seeded.map((j) => ({ jobId: j.id, scheduledFor: j.nextRunAt as number }));
  return {
    probes: analyseFires({ expected: slotsOf(probes), executions, arrivals, deadline }),
    background: background > 0 ? analyseFires({ expected: slotsOf(seededBackground), executions, arrivals, deadline }) : null,
    jobs,
  };
}

/** Bytes of the tables (with indexes and TOAST) and the row count `countSql` gives. */
async function tableBytes(ctx: BenchContext, tables: string[], countSql: string): Promise<{ bytes: number; rows: number }> {
  const r = await ctx.pool.query<{ bytes: string; rows: string }>(
    `SELECT (SELECT sum(pg_total_relation_size(t::regclass)) FROM unnest($1::text[]) AS t)::text AS bytes, (${countSql})::text AS rows`,
    [tables],
  );
  return { bytes: Number(r.rows[0].bytes), rows: Number(r.rows[0].rows) };
}

function lagFigures(label: string, w: WindowResult): Figure[] {
  const s = w.probes.summary;
  const lost = w.probes.misses + (w.background?.misses ?? 0);
  const duplicates = w.probes.duplicates + (w.background?.duplicates ?? 0);
  // Lag percentiles of a window where fires were lost describe only the fires that arrived.
  const problems = lost > 0 ? [`${lost} of ${w.probes.expected + (w.background?.expected ?? 0)} fires missed`] : [];
  const background = w.background ? `; ${count(w.background.expected)} schedules fired in the same window, their lag p99 ${w.background.summary ? Math.round(w.background.summary.p99) : 'n/a'} ms` : '';
  return [
    fig(`${label}: probe fire lag p50`, s?.p50 ?? null, 'ms', { problems }),
    fig(`${label}: probe fire lag p99`, s?.p99 ?? null, 'ms', { problems, note: `${w.probes.expected} one-shot probes${background}` }),
    fig(`${label}: fires missed or repeated`, lost + duplicates, '', {
      target: TARGETS.zero,
      note: [...w.probes.missSamples, ...(w.background?.missSamples ?? [])].slice(0, 2).join('; ') || undefined,
    }),
  ];
}

/** Blocks the run's database read from outside Postgres's shared buffers so far. */
async function blocksRead(ctx: BenchContext): Promise<number> {
  const r = await ctx.pool.query<{ n: string }>(`SELECT blks_read::text AS n FROM pg_stat_database WHERE datname = $1`, [ctx.dbName]);
  return Number(r.rows[0]?.n ?? 0);
}

interface Burst {
  rate: Figure;
  /** CPU of the service's processes and of Postgres per execution: steadier than the rate when others share the machine. */
  cpu: Figure;
  details: Record<string, unknown>;
}

/** One_time jobs created through POST /v1/jobs, 32 in flight, until GET /v1/executions says every one has succeeded. */
async function burst(ctx: BenchContext, service: Service, label: string): Promise<Burst> {
  const p = ctx.params.scaling;
  await ctx.target.reset();
  const res = await fetch(`${service.baseUrl}/v1/executions?status=succeeded&limit=1`, { headers: { authorization: `Bearer ${ctx.apiToken}` } });
  if (!res.ok) throw new Error(`GET /v1/executions answered ${res.status}`);
  const before = ((await res.json()) as { total: number }).total;
  const body = JSON.stringify({ name: 'scaling burst', kind: 'one_time', request: { url: `${ctx.target.url}/burst` } });
  ctx.log(`${SCENARIO}: ${label}: ${count(p.burst)} one_time jobs through POST /v1/jobs`);
  const cpu = cpuWindow(service.all());
  const [pgBefore, readBefore] = [await postgresTicks(ctx), await blocksRead(ctx)];
  const result = await runE2eLoad<ClosedResult>(
    { mode: 'closed', baseUrl: service.baseUrl, token: ctx.apiToken, call: { kind: 'create', body }, count: p.burst, inFlight: p.inFlight, succeededTotal: before + p.burst, timeoutMs: p.timeoutMs },
    p.timeoutMs + 60_000,
  );
  const report = cpu();
  const pgMs = (postgresTicksBetween(pgBefore, await postgresTicks(ctx)) / CLOCK_TICKS_PER_SECOND) * 1000;
  // Backends publish their I/O counters when they go idle, at most once a second.
  await sleep(1_500);
  const blocks = (await blocksRead(ctx)) - readBefore;
  service.assertAlive();
  const stats = await ctx.target.stats();
  const problems: string[] = [];
  const non2xx = Object.entries(result.statuses).filter(([code]) => !code.startsWith('2'));
  if (non2xx.length > 0) problems.push(`answers that were not 2xx: ${non2xx.map(([code, n]) => `${n}x${code}`).join(', ')}`);
  if (result.errors > 0) problems.push(`${result.errors} connection errors`);
  if (result.succeeded < before + p.burst) problems.push(`only ${result.succeeded - before} of ${p.burst} executions succeeded within ${p.timeoutMs} ms`);
  if (stats.distinct < p.burst) problems.push(`the target received ${stats.distinct} of ${p.burst}`);
  const processMs = Object.fromEntries(Object.entries(report.processes).map(([name, percent]) => [name, percent === null ? null : (percent / 100) * report.windowMs]));
  const perExecution = (ms: number | null) => (ms === null ? 'n/a' : (ms / p.burst).toFixed(2));
  const serviceMs = Object.values(processMs).reduce<number>((a, b) => a + (b ?? 0), 0);
  const note = [
    `${count(p.burst)} jobs, ${p.inFlight} in flight`,
    `create p99 ${result.latency ? Math.round(result.latency.p99) : 'n/a'} ms`,
    stats.total > stats.distinct ? `${stats.total - stats.distinct} repeated calls` : null,
    `machine busy ${Math.round(report.machineBusyPercent ?? 0)}%`,
  ]
    .filter(Boolean)
    .join('; ');
  return {
    rate: fig(`${label}: executions/s, one_time jobs created through POST /v1/jobs`, problems.length === 0 ? p.burst / (result.elapsedMs / 1000) : null, 'exec/s', { problems, note }),
    cpu: fig(`${label}: CPU per execution of that burst, service and Postgres`, problems.length === 0 ? (serviceMs + pgMs) / p.burst : null, 'ms', {
      problems,
      note: `${Object.entries(processMs).map(([name, ms]) => `${name} ${perExecution(ms)}`).join(', ')}, Postgres ${perExecution(pgMs)} ms; ${(blocks / p.burst).toFixed(1)} blocks read from outside shared buffers per execution`,
    }),
    details: { result, target: stats, cpu: report, processMs, postgresMs: pgMs, blocksRead: blocks },
  };
}

/** The scheduler's and Postgres's CPU (every backend of the run's database) with nothing due, in percent of one core. */
async function idleCpu(ctx: BenchContext, service: Service): Promise<{ scheduler: number | null; postgres: number }> {
  await sleep(serviceSetting(ctx, 'SCHEDULER_TICK_MS', 500) * 2);
  const window = cpuWindow([service.scheduler]);
  const pgBefore = await postgresTicks(ctx);
  await sleep(ctx.params.scaling.idleWindowMs);
  const report = window();
  const pgTicks = postgresTicksBetween(pgBefore, await postgresTicks(ctx));
  return { scheduler: report.processes[service.scheduler.name] ?? null, postgres: (pgTicks / CLOCK_TICKS_PER_SECOND / (report.windowMs / 1000)) * 100 };
}

/** Removes the probes and the burst's jobs (their executions go with them), so the next size's figures hold only its own. */
async function clearTransient(ctx: BenchContext): Promise<void> {
  await ctx.pool.query(`DELETE FROM jobs WHERE kind IN ('one_time', 'scheduled')`);
  await ctx.pool.query('VACUUM jobs, executions, attempts');
}

interface SizeFigures {
  size: number;
  lagP99: Figure;
  rate: Figure;
  cpuPerExecution: Figure;
  bytes: Figure;
  cpu?: { scheduler: Figure; postgres: Figure };
  pages?: { list: Figure; dlq: Figure };
}

async function schedulesSeries(ctx: BenchContext, service: Service, figures: Figure[], details: Record<string, unknown>): Promise<SizeFigures[]> {
  const p = ctx.params.scaling;
  const ws = await workspaceId(ctx.pool);
  const out: SizeFigures[] = [];
  for (const step of schedulePlan(p.schedules, p.firing)) {
    const label = `${count(step.size)} active schedules (seeded)`;
    ctx.log(`${SCENARIO}: ${label}: adding ${count(step.ahead)} due later and ${count(step.firing)} due in the window`);
    const started = Date.now();
    await seedDailySchedules(ctx.pool, {
      workspaceId: ws,
      shape: jobShape(ctx.target.url),
      count: step.ahead,
      namePrefix: `scaling-ahead-${step.size}-`,
      nextRunAtSql: `date_trunc('minute', now() + interval '10 minutes' + (i::float8 / $8::float8) * interval '23 hours')`,
      params: [step.ahead],
    });
    const seedMs = Date.now() - started;
    const w = await fireWindow(ctx, service, label, step.firing);
    const active = (await ctx.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM jobs WHERE state = 'active' AND kind IN ('cron', 'recurring')`)).rows[0].n;
    const lag = lagFigures(label, w);
    const cpu = await idleCpu(ctx, service);
    const rate = await burst(ctx, service, label);
    const sizeFigures: SizeFigures = {
      size: step.size,
      lagP99: lag[1],
      rate: rate.rate,
      cpuPerExecution: rate.cpu,
      bytes: fig(`${label}: Postgres bytes per job row`, w.jobs.rows > 0 ? w.jobs.bytes / w.jobs.rows : null, 'B', {
        note: `${count(w.jobs.rows)} rows (${count(active)} active schedules, ${p.probes} probes), table with indexes and TOAST`,
        problems: active === step.size ? [] : [`${count(active)} active schedules, not ${count(step.size)}`],
      }),
      cpu: {
        scheduler: fig(`${label}: scheduler CPU while idle`, cpu.scheduler, '% of a core', { note: `over ${p.idleWindowMs / 1000} s with nothing due` }),
        postgres: fig(`${label}: Postgres CPU while idle`, cpu.postgres, '% of a core', { note: "every backend of the run's database: the service's polling at rest" }),
      },
    };
    figures.push(...lag, sizeFigures.cpu!.scheduler, sizeFigures.cpu!.postgres, sizeFigures.bytes, rate.rate, rate.cpu);
    details[`schedules_${step.size}`] = { step, seedMs, active, probes: strip(w.probes), background: w.background && strip(w.background), jobs: w.jobs, cpu, burst: rate.details };
    out.push(sizeFigures);
    await clearTransient(ctx);
  }
  return out;
}

/** GET /v1/executions?limit=50 and GET /v1/dlq?limit=50 at a paced rate, from a load process of their own. */
async function pages(ctx: BenchContext, service: Service, label: string): Promise<{ list: Figure; dlq: Figure; details: unknown }> {
  const p = ctx.params.scaling;
  const headers = { authorization: `Bearer ${ctx.apiToken}` };
  const common = { method: 'GET' as const, headers, connections: 10, durationSeconds: p.pageSeconds, warmupSeconds: 1, overallRate: p.pageRate, paced: true };
  const runs: LoadRun[] = [
    { name: 'list', url: `${service.baseUrl}/v1/executions?limit=50`, ...common },
    { name: 'dlq', url: `${service.baseUrl}/v1/dlq?limit=50`, ...common },
  ];
  const results = await runLoad('page-load', runs, runs.length * (p.pageSeconds + 20) * 1000 + 30_000);
  const figure = (run: string, what: string): Figure => {
    const found = results.find((r) => r.name === run);
    const s = found ? summarizeLoad(found.result, { requestedRate: p.pageRate }) : { p50: null, p99: null, problems: ['no result'], shortfall: null };
    return fig(`${label}: ${what} p99 at ${p.pageRate} req/s`, s.p99, 'ms', { problems: s.problems, note: [`p50 ${s.p50 === null ? 'n/a' : Math.round(s.p50)} ms`, s.shortfall].filter(Boolean).join('; ') });
  };
  return { list: figure('list', 'GET /v1/executions?limit=50'), dlq: figure('dlq', 'GET /v1/dlq?limit=50'), details: results };
}

async function executionsSeries(ctx: BenchContext, service: Service, figures: Figure[], details: Record<string, unknown>): Promise<SizeFigures[]> {
  const p = ctx.params.scaling;
  const sizes = p.executions;
  if (sizes.length < 2 || sizes.some((n, i) => i > 0 && n <= sizes[i - 1])) throw new Error(`stored executions must be two or more growing sizes, got ${sizes.join(', ')}`);
  const out: SizeFigures[] = [];
  for (const size of sizes) {
    const label = `${count(size)} stored executions (seeded)`;
    const seeded = await ensureHistory(ctx, size, { mix: HISTORY_MIX, plannedTotal: sizes[sizes.length - 1], bulk: true });
    const stored = await tableBytes(ctx, ['executions', 'attempts'], `SELECT sum(n) FROM execution_counts`);
    const dead = (await ctx.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions WHERE dead_lettered_at IS NOT NULL`)).rows[0].n;
    const seconds = (ms: number) => Math.round(ms / 1000);
    const bytes = fig(`${label}: Postgres bytes per execution, with its attempt`, stored.rows > 0 ? stored.bytes / stored.rows : null, 'B', {
      note: `${count(stored.rows)} rows, ${count(dead)} in the DLQ; seeded in ${seconds(seeded.insertMs)} s + indexes rebuilt in ${seconds(seeded.rebuildMs)} s + VACUUM ANALYZE ${seconds(seeded.vacuumMs)} s`,
    });
    const w = await fireWindow(ctx, service, label, 0);
    const lag = lagFigures(label, w);
    const page = await pages(ctx, service, label);
    const rate = await burst(ctx, service, label);
    figures.push(bytes, ...lag, page.list, page.dlq, rate.rate, rate.cpu);
    details[`executions_${size}`] = { seeded, stored, deadLettered: dead, probes: strip(w.probes), pages: page.details, burst: rate.details };
    out.push({ size, lagP99: lag[1], rate: rate.rate, cpuPerExecution: rate.cpu, bytes, pages: { list: page.list, dlq: page.dlq } });
    await clearTransient(ctx);
  }
  return out;
}

/** The verdicts between the smallest and the largest size of a series. */
function growthFigures(series: string, unit: string, sizes: SizeFigures[]): Figure[] {
  const [small, large] = [sizes[0], sizes[sizes.length - 1]];
  const span = `${series} ${count(small.size)} -> ${count(large.size)}`;
  const perUnit = (what: string, inputs: Figure[], cost: (values: number[], size: number) => number) =>
    derived({ scenario: SCENARIO, name: `${span}: ${what} per ${unit}, largest / smallest`, unit: 'x', target: TARGETS.perUnitGrowth }, inputs, (...values) => {
      const half = values.length / 2;
      return perUnitGrowth({ size: small.size, cost: cost(values.slice(0, half), small.size) }, { size: large.size, cost: cost(values.slice(half), large.size) });
    });
  const out: Figure[] = [
    latencyGrowthFigure({ scenario: SCENARIO, name: `${span}: probe fire lag p99 at the largest` }, small.lagP99, large.lagP99, LATENCY_GROWTH.fireLag),
    derived({ scenario: SCENARIO, name: `${span}: executions/s through POST /v1/jobs, largest / smallest`, unit: 'x', target: TARGETS.rateGrowth }, [small.rate, large.rate], (a, b) => b / a),
    derived(
      { scenario: SCENARIO, name: `${span}: CPU per execution through POST /v1/jobs, largest / smallest`, unit: 'x', target: TARGETS.perUnitGrowth },
      [small.cpuPerExecution, large.cpuPerExecution],
      (a, b) => b / a,
    ),
    // A figure per row times the rows is the whole cost.
    perUnit('Postgres bytes', [small.bytes, large.bytes], ([perRow], size) => perRow * size),
  ];
  if (small.cpu && large.cpu) {
    out.push(perUnit('idle CPU of the scheduler and Postgres', [small.cpu.scheduler, small.cpu.postgres, large.cpu.scheduler, large.cpu.postgres], ([scheduler, postgres]) => scheduler + postgres));
  }
  if (small.pages && large.pages) {
    out.push(
      latencyGrowthFigure({ scenario: SCENARIO, name: `${span}: GET /v1/executions?limit=50 p99 at the largest` }, small.pages.list, large.pages.list, LATENCY_GROWTH.page),
      latencyGrowthFigure({ scenario: SCENARIO, name: `${span}: GET /v1/dlq?limit=50 p99 at the largest` }, small.pages.dlq, large.pages.dlq, LATENCY_GROWTH.page),
    );
  }
  return out;
}

/** A fire report without its per-fire lags, for the JSON. */
function strip(report: FireReport): Omit<FireReport, 'lags'> {
  const { lags: _lags, ...rest } = report;
  return rest;
}

function loadFigure(when: string, loadavg: number[]): Figure {
  return fig(`machine load average at ${when} (1 min)`, loadavg[0], '', { note: `1, 5, 15 min as uptime prints them: ${formatLoadAverage(loadavg)}; ${os.cpus().length} cpus` });
}

export async function scaling(ctx: BenchContext): Promise<ScenarioResult> {
  const p = ctx.params.scaling;
  const loadAtStart = os.loadavg();
  const service = await ensureService(ctx);
  await resetServiceData(ctx.pool);
  const figures: Figure[] = [loadFigure('start', loadAtStart)];
  const details: Record<string, unknown> = {};
  const schedules = await schedulesSeries(ctx, service, figures, details);
  figures.push(...growthFigures('active schedules', 'schedule', schedules));
  await resetServiceData(ctx.pool);
  const executions = await executionsSeries(ctx, service, figures, details);
  figures.push(...growthFigures('stored executions', 'execution', executions));
  const loadAtEnd = os.loadavg();
  figures.push(loadFigure('end', loadAtEnd));
  // Ten million executions take gigabytes: none of it is left to the scenarios after this one.
  await resetServiceData(ctx.pool);
  return {
    figures,
    parameters: {
      ...p,
      historyMix: HISTORY_MIX,
      lookaheadMs: serviceSetting(ctx, 'SCHEDULER_LOOKAHEAD_MS', 5_000),
      tickMs: serviceSetting(ctx, 'SCHEDULER_TICK_MS', 500),
      latencyGrowth: LATENCY_GROWTH,
      loadAverage: { start: loadAtStart, end: loadAtEnd },
    },
    details,
  };
}
