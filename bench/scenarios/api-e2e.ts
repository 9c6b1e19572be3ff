// api-e2e: the public path, measured as an integrator sees it. A separate load process creates N
// one_time jobs through POST /v1/jobs (32 in flight) and reads GET /v1/executions?status=succeeded
// until all N executions have succeeded; the same with POST /v1/jobs/:id/run-now on existing jobs.
// Then the latency of POST /v1/jobs (one_time and recurring) and run-now at an even 500 req/s,
// while the executor is busy with the executions those requests (or a load beside them) create.
// Then the same closed loop against the minimal pipeline (bench/minimal/: a bare node:http front
// that inserts and queues in batches, a BullMQ worker calling the target with bare node:http,
// results inserted in batches), so the service's figure is also a ratio to the floor its own
// parts allow on this machine in this run.
// Last, the one_time run again on the zero-install setup: an embedded PostgreSQL of its own with
// the queues in it (BullMQ's PostgreSQL backend), as `npm start` runs on a machine with only Node.js.
import { writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { closeEmbeddedContext, cpuWindow, ensureService, openContext, postgresTicks, postgresTicksBetween, runNames, waitUntil, type BenchContext } from '../harness/context.js';
import { runE2eLoad } from '../harness/e2e-load.js';
import { CLOCK_TICKS_PER_SECOND, cpuTicks, repoRoot, spawnTsx, type Managed } from '../harness/processes.js';
import { resetServiceData, seedOneTimeJobs, workspaceId } from '../harness/seed.js';
import type { Service } from '../harness/service.js';
import type { ClosedResult, E2eCall, PacedSpec } from '../load/e2e.js';
import { summarizeLoad, type LoadResult } from '../lib/load.js';
import { TARGETS } from '../lib/params.js';
import { derived, type Figure, type Target } from '../lib/verdict.js';
import { REDIS_URL } from '../harness/stores.js';
import type { ScenarioResult } from './types.js';

const SCENARIO = 'api-e2e';

/** Seeds `count` active one_time jobs (run-now targets) and writes their ids to a file for the load process. */
async function seedRunNowJobs(ctx: BenchContext, count: number): Promise<string> {
  const jobs = await seedOneTimeJobs(ctx.pool, { workspaceId: await workspaceId(ctx.pool), targetUrl: ctx.target.url, count, namePrefix: 'e2e-run-now-' });
  const file = path.join(repoRoot, 'bench', 'results', `run-now-${process.pid}.tmp`);
  writeFileSync(file, jobs.map((j) => j.id).join('\n'));
  return file;
}

/** Waits until no execution is queued or running, so what follows starts on an idle service. */
async function drained(ctx: BenchContext, service: Service): Promise<void> {
  await waitUntil(
    'executions to drain',
    async () => (await ctx.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions WHERE status IN ('queued', 'running')`)).rows[0].n === 0,
    120_000,
    () => service.assertAlive(),
  );
}

/**
 * Where the CPU went during a run, in ms: each service process, the target, and the Postgres
 * backends of the bench database (a backend that appeared during the window counts whole).
 */
function cpuAccount(ctx: BenchContext, processes: Managed[]): () => Promise<Record<string, number | null>> {
  const window = cpuWindow([...processes, ctx.target.process]);
  const before = postgresTicks(ctx);
  const redisPid = redisServerPid(ctx);
  const redisBefore = redisPid.then((pid) => (pid === null ? null : cpuTicks(pid)));
  return async () => {
    const report = window();
    const ticks = postgresTicksBetween(await before, await postgresTicks(ctx));
    const [pid, redisStart] = [await redisPid, await redisBefore];
    const redisEnd = pid === null ? null : cpuTicks(pid);
    const ms = (percent: number | null) => (percent === null ? null : (percent / 100) * report.windowMs);
    return {
      ...Object.fromEntries(Object.entries(report.processes).map(([name, percent]) => [name, ms(percent)])),
      postgres: (ticks / CLOCK_TICKS_PER_SECOND) * 1000,
      // The whole Redis server: other users of it during the run count too.
      redis: redisStart === null || redisEnd === null ? null : ((redisEnd - redisStart) / CLOCK_TICKS_PER_SECOND) * 1000,
      machineBusyPercent: report.machineBusyPercent,
      windowMs: report.windowMs,
    };
  };
}

/** The pid of the Redis server the bench uses, when it runs on this machine. */
async function redisServerPid(ctx: BenchContext): Promise<number | null> {
  const match = /process_id:(\d+)/.exec(await ctx.redis.info('server').catch(() => ''));
  return match ? Number(match[1]) : null;
}

/** CPU ms per call of each process, Postgres and Redis, in the run's log. */
function logCpuPerCall(ctx: BenchContext, cpuMs: Record<string, number | null>, count: number): Record<string, number | null> {
  const perCall = Object.fromEntries(Object.entries(cpuMs).filter(([k]) => k !== 'machineBusyPercent' && k !== 'windowMs').map(([k, v]) => [k, v === null ? null : v / count]));
  ctx.log(`${SCENARIO}: CPU ms per call: ${JSON.stringify(perCall, (_k, v: unknown) => (typeof v === 'number' ? Math.round(v * 1000) / 1000 : v))}, machine busy ${Math.round(cpuMs.machineBusyPercent ?? 0)}%`);
  return perCall;
}

/**
 * The minimal pipeline (bench/minimal/) on the bench's database, Redis and target: the same closed
 * loop and the same body, so its executions/s is the floor the service's public path is held to.
 */
async function minimalPipeline(ctx: BenchContext, body: string): Promise<{ figures: Figure[]; details: Record<string, unknown> }> {
  const p = ctx.params.apiE2e;
  const run = `minimal-${process.pid}`;
  await ctx.pool.query(`CREATE TABLE IF NOT EXISTS bench_minimal_jobs (run text NOT NULL, id text NOT NULL, url text NOT NULL)`);
  await ctx.pool.query(`CREATE TABLE IF NOT EXISTS bench_results (run text NOT NULL, id text NOT NULL, status int NOT NULL, finished_at timestamptz(3) NOT NULL)`);
  await ctx.pool.query(`DELETE FROM bench_minimal_jobs WHERE run = $1`, [run]);
  await ctx.pool.query(`DELETE FROM bench_results WHERE run = $1`, [run]);
  await ctx.target.reset();
  const env = { DATABASE_URL: ctx.databaseUrl, REDIS_URL, REDIS_PREFIX: ctx.redisPrefix, QUEUE: 'bench_minimal', RUN: run, CONCURRENCY: String(ctx.params.throughput.workerConcurrency) };
  const worker = spawnTsx('minimal-worker', 'bench/minimal/worker.ts', env);
  const front = spawnTsx('minimal-front', 'bench/minimal/front.ts', env);
  try {
    // Both at once: a line printed before its watcher exists is not seen.
    const [, [, port]] = await Promise.all([worker.waitForLine(/^READY$/, 60_000), front.waitForLine(/^READY (\d+)$/, 60_000)]);
    ctx.log(`${SCENARIO}: ${p.executions.toLocaleString('en-US')} one_time jobs through the minimal pipeline, ${p.inFlight} in flight`);
    const cpu = cpuAccount(ctx, [front, worker]);
    const result = await runE2eLoad<ClosedResult>(
      { mode: 'closed', baseUrl: `http://127.0.0.1:${port}`, token: 'none', call: { kind: 'create', body }, count: p.executions, inFlight: p.inFlight, succeededTotal: p.executions, timeoutMs: p.timeoutMs },
      p.timeoutMs + 60_000,
    );
    const cpuReport = await cpu();
    const perCall = logCpuPerCall(ctx, cpuReport, p.executions);
    const stats = await ctx.target.stats();
    const problems = result.succeeded < p.executions ? [`only ${result.succeeded} of ${p.executions} calls recorded within ${p.timeoutMs} ms`] : [];
    const figures: Figure[] = [
      { scenario: SCENARIO, name: 'minimal pipeline: executions/s end to end', value: problems.length === 0 ? p.executions / (result.elapsedMs / 1000) : null, unit: 'exec/s', problems },
      { scenario: SCENARIO, name: 'minimal pipeline: lost calls at the target', value: Math.max(0, p.executions - stats.distinct), unit: '', target: TARGETS.zero },
    ];
    return { figures, details: { result, target: stats, cpuMs: cpuReport, cpuMsPerCall: perCall } };
  } finally {
    await front.stop();
    await worker.stop();
  }
}

/** Closed loop: N calls, 32 in flight, then checks what the target received. */
async function endToEnd(
  ctx: BenchContext,
  service: Service,
  label: string,
  call: E2eCall,
  count: number,
  target: Target = TARGETS.endToEndPerSecond,
): Promise<{ figures: Figure[]; details: Record<string, unknown> }> {
  const p = ctx.params.apiE2e;
  await ctx.target.reset();
  ctx.log(`${SCENARIO}: ${count.toLocaleString('en-US')} ${label}, ${p.inFlight} in flight, until all succeeded`);
  const timeoutMs = p.timeoutMs;
  const cpu = cpuAccount(ctx, service.all());
  const result = await runE2eLoad<ClosedResult>(
    { mode: 'closed', baseUrl: service.baseUrl, token: ctx.apiToken, call, count, inFlight: p.inFlight, succeededTotal: count, timeoutMs },
    timeoutMs + 60_000,
  );
  const cpuMs = await cpu();
  service.assertAlive();
  const stats = await ctx.target.stats();
  const lost = Math.max(0, count - stats.distinct);
  const duplicates = stats.total - stats.distinct;
  const problems: string[] = [];
  const non2xx = Object.entries(result.statuses).filter(([code]) => !code.startsWith('2'));
  if (non2xx.length > 0) problems.push(`answers that were not 2xx: ${non2xx.map(([code, n]) => `${n}x${code}`).join(', ')}`);
  if (result.errors > 0) problems.push(`${result.errors} connection errors`);
  if (result.succeeded < count) problems.push(`only ${result.succeeded} of ${count} executions succeeded within ${timeoutMs} ms`);
  const perSecond = result.succeeded >= count ? count / (result.elapsedMs / 1000) : null;
  const figures: Figure[] = [
    { scenario: SCENARIO, name: `${label}: executions/s end to end`, value: perSecond, unit: 'exec/s', target, problems },
    { scenario: SCENARIO, name: `${label}: calls/s`, value: count / (result.callsElapsedMs / 1000), unit: 'req/s', problems },
    { scenario: SCENARIO, name: `${label}: call p50 while executions run`, value: result.latency?.p50 ?? null, unit: 'ms', problems },
    { scenario: SCENARIO, name: `${label}: call p99 while executions run`, value: result.latency?.p99 ?? null, unit: 'ms', target: TARGETS.endToEndCallP99Ms, problems },
    { scenario: SCENARIO, name: `${label}: lost calls at the target`, value: lost, unit: '', target: TARGETS.zero },
    { scenario: SCENARIO, name: `${label}: duplicate calls at the target`, value: duplicates, unit: '', target: TARGETS.zero },
  ];
  const perCall = logCpuPerCall(ctx, cpuMs, count);
  return { figures, details: { result, target: stats, cpuMs, cpuMsPerCall: perCall } };
}

function pacedFigures(name: string, result: LoadResult | undefined, rate: number): Figure[] {
  const s = result
    ? summarizeLoad(result, { requestedRate: rate })
    : { requestsPerSecond: null, p50: null, p99: null, total: 0, problems: ['no result'], shortfall: null };
  return [
    { scenario: SCENARIO, name: `${name}: requests/s`, value: s.requestsPerSecond, unit: 'req/s', problems: s.problems, note: s.shortfall ?? undefined },
    { scenario: SCENARIO, name: `${name}: p50`, value: s.p50, unit: 'ms', problems: s.problems },
    { scenario: SCENARIO, name: `${name}: p99`, value: s.p99, unit: 'ms', target: TARGETS.postJobsP99Ms, problems: s.problems, unmet: s.shortfall ?? undefined },
  ];
}

/**
 * The one_time closed loop on a context of its own: an embedded PostgreSQL holding the data and
 * the queues. The shared service is idle meanwhile (drained), so the two do not share the CPU.
 */
async function onEmbedded(ctx: BenchContext, oneTime: string): Promise<{ figures: Figure[]; details: Record<string, unknown> }> {
  const embedded = await openContext(ctx.args, ctx.params, runNames(), 'embedded');
  try {
    const service = await ensureService(embedded);
    const body = oneTime.replace(ctx.target.url, embedded.target.url);
    return await endToEnd(embedded, service, 'embedded PostgreSQL, queues on it: one_time jobs created', { kind: 'create', body }, ctx.params.apiE2e.executions, TARGETS.embeddedEndToEndPerSecond);
  } finally {
    await closeEmbeddedContext(embedded);
  }
}

export async function apiE2e(ctx: BenchContext): Promise<ScenarioResult> {
  const p = ctx.params.apiE2e;
  const service = await ensureService(ctx);
  const target = `${ctx.target.url}/e2e`;
  const oneTime = JSON.stringify({ name: 'e2e one_time', kind: 'one_time', request: { url: target } });
  const hourly = JSON.stringify({ name: 'e2e hourly', kind: 'recurring', schedule: { every_n_minutes: 60 }, request: { url: target } });
  const figures: Figure[] = [];
  const details: Record<string, unknown> = {};
  const files: string[] = [];
  try {
    await resetServiceData(ctx.pool);
    const created = await endToEnd(ctx, service, 'one_time jobs created', { kind: 'create', body: oneTime }, p.executions);
    figures.push(...created.figures);
    details.oneTime = created.details;

    await drained(ctx, service);
    const minimal = await minimalPipeline(ctx, oneTime);
    figures.push(...minimal.figures);
    figures.push(
      derived(
        { scenario: SCENARIO, name: 'one_time jobs created / minimal pipeline', unit: 'x', target: TARGETS.ratioToMinimalPipeline },
        [created.figures[0], minimal.figures[0]],
        (service, floor) => service / floor,
      ),
    );
    details.minimal = minimal.details;

    await resetServiceData(ctx.pool);
    files.push(await seedRunNowJobs(ctx, p.executions));
    const runNow = await endToEnd(ctx, service, 'run-now calls', { kind: 'run-now', jobIdsFile: files[0] }, p.executions);
    figures.push(...runNow.figures);
    details.runNow = runNow.details;

    await resetServiceData(ctx.pool);
    await ctx.target.reset();
    files.push(await seedRunNowJobs(ctx, Math.ceil(p.pacedRate * (p.durationSeconds + p.warmupSeconds))));
    const common = { rate: p.pacedRate, durationSeconds: p.durationSeconds, warmupSeconds: p.warmupSeconds, connections: p.connections };
    const runs: PacedSpec['runs'] = [
      { name: `POST /v1/jobs one_time at ${p.pacedRate} req/s, executing`, call: { kind: 'create', body: oneTime }, ...common },
      { name: `POST /v1/jobs/:id/run-now at ${p.pacedRate} req/s, executing`, call: { kind: 'run-now', jobIdsFile: files[1] }, ...common },
      {
        name: `POST /v1/jobs recurring at ${p.pacedRate} req/s beside ${p.pacedRate} one_time/s executing`,
        call: { kind: 'create', body: hourly },
        alongside: { call: { kind: 'create', body: oneTime }, rate: p.pacedRate },
        ...common,
      },
    ];
    ctx.log(`${SCENARIO}: ${runs.length} paced runs of ${p.durationSeconds} s at ${p.pacedRate} req/s`);
    const paced = await runE2eLoad<{ name: string; result: LoadResult }[]>(
      { mode: 'paced', baseUrl: service.baseUrl, token: ctx.apiToken, runs },
      runs.length * (p.durationSeconds + p.warmupSeconds + 30) * 1000 + 60_000,
    );
    for (const run of runs) figures.push(...pacedFigures(run.name, paced.find((r) => r.name === run.name)?.result, run.rate));
    details.paced = paced;
    await drained(ctx, service);

    const embedded = await onEmbedded(ctx, oneTime);
    figures.push(...embedded.figures);
    details.embedded = embedded.details;
  } finally {
    for (const file of files) rmSync(file, { force: true });
  }
  return {
    figures,
    parameters: { executions: p.executions, inFlight: p.inFlight, pacedRate: p.pacedRate, durationSeconds: p.durationSeconds, executors: service.executors.length },
    details,
  };
}
