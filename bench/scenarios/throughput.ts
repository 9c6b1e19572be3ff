// throughput: N executions against the target answering 200 at once; executions per second from
// the first enqueue to the last succeeded row. The service with 1 and 2 executors, each with the
// executions in one workspace and spread over 100, the ceiling (a bare BullMQ worker with the same
// HTTP client and batched INSERTs), and pg-boss and graphile-worker doing the same work, all in
// the same run.
import { catalog, executionJobId } from '@cronsvc/core';
import { Queue } from 'bullmq';
import { makeWorkerUtils } from 'graphile-worker';
import { Redis } from 'ioredis';
import PgBoss from 'pg-boss';
import path from 'node:path';
import { cpuWindow, ensureService, PROFILE_DIR, waitForCompletion, type BenchContext, type CpuReport } from '../harness/context.js';
import { repoRoot, spawnTsx, type Managed } from '../harness/processes.js';
import { benchWorkspaces, resetServiceData, seedManualExecutions, seedOneTimeJobs, type SeededJob } from '../harness/seed.js';
import { REDIS_URL } from '../harness/stores.js';
import { countDeliveries } from '../lib/lag.js';
import { TARGETS } from '../lib/params.js';
import { throughputRate } from '../lib/rate.js';
import { derived, type Figure } from '../lib/verdict.js';
import type { ScenarioResult } from './types.js';

const SCENARIO = 'throughput';
const ENQUEUE_BATCH = 1_000;

interface VariantRun {
  name: string;
  figure: Figure;
  details: Record<string, unknown>;
}

function rateFigure(name: string, firstEnqueueAt: number, completedAt: number[], expected: number, extraProblems: string[], note?: string): { figure: Figure; rate: ReturnType<typeof throughputRate> } {
  const rate = throughputRate({ firstEnqueueAt, completedAt, expected });
  return {
    rate,
    figure: { scenario: SCENARIO, name, value: rate.perSecond, unit: 'exec/s', problems: [...rate.problems, ...extraProblems], note },
  };
}

async function targetCheck(ctx: BenchContext, expected: number): Promise<{ problems: string[]; deliveries: ReturnType<typeof countDeliveries> }> {
  const deliveries = countDeliveries((await ctx.target.arrivals()).map((a) => a.executionId));
  const problems = deliveries.distinct < expected ? [`the target received ${deliveries.distinct} of ${expected} distinct requests`] : [];
  return { problems, deliveries };
}

/** What an execution that never finished looks like in Postgres and in the queue, for the report. */
async function unfinishedSample(ctx: BenchContext): Promise<Record<string, unknown>[]> {
  const rows = await ctx.pool.query<{ id: string; status: string; attempt_count: number; next_attempt_at: Date; locked_until: Date | null; started_at: Date | null; attempts: number }>(
    `SELECT id, status, attempt_count, next_attempt_at, locked_until, started_at,
            (SELECT count(*)::int FROM attempts a WHERE a.execution_id = e.id) AS attempts
       FROM executions e
      WHERE status NOT IN ('succeeded', 'failed') ORDER BY next_attempt_at LIMIT 5`,
  );
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const queue = new Queue(catalog.execution.queue, { connection, prefix: ctx.redisPrefix });
  try {
    const arrived = new Set((await ctx.target.arrivals()).map((a) => a.executionId));
    return await Promise.all(
      rows.rows.map(async (r) => ({
        ...r,
        receivedByTarget: arrived.has(r.id),
        queueState: await queue.getJobState(executionJobId(r.id, r.attempt_count + 1)),
      })),
    );
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

/**
 * The service run's name. "executor alone": the executions are seeded, so the API is not on the
 * path; the public path's figures are api-e2e's.
 */
const serviceRunName = (executors: number, workspaces: number) =>
  `executor alone, ${executors} executor${executors > 1 ? 's' : ''}${workspaces > 1 ? `, ${workspaces} workspaces` : ''}`;

/** 100 one_time jobs (at least one per workspace), spread evenly over `workspaces` workspaces. */
async function seedJobsOver(ctx: BenchContext, workspaces: number): Promise<SeededJob[]> {
  const ids = await benchWorkspaces(ctx.pool, workspaces);
  const perWorkspace = Math.ceil(100 / workspaces);
  const jobs: SeededJob[] = [];
  for (const [w, ws] of ids.entries()) {
    jobs.push(...(await seedOneTimeJobs(ctx.pool, { workspaceId: ws, targetUrl: ctx.target.url, count: perWorkspace, namePrefix: `throughput-${w}-` })));
  }
  // Interleaved by workspace, so round-robin executions take the workspaces in turn.
  return jobs.map((job, i) => ({ job, key: (i % perWorkspace) * workspaces + Math.floor(i / perWorkspace) })).sort((a, b) => a.key - b.key).map((x) => x.job);
}

async function serviceRun(ctx: BenchContext, executors: number, workspaces: number): Promise<VariantRun> {
  const n = ctx.params.throughput.executions;
  const service = await ensureService(ctx);
  const extra: Managed[] = [];
  while (service.executors.length < executors) extra.push(await service.addExecutor());
  try {
    await resetServiceData(ctx.pool);
    await ctx.target.reset();
    const jobs = await seedJobsOver(ctx, workspaces);
    // What run-now commits before it enqueues: a queued manual execution per call.
    const executions = await seedManualExecutions(ctx.pool, { jobs, count: n });
    const name = serviceRunName(executors, workspaces);
    ctx.log(`${SCENARIO}: ${name}: ${n} executions`);
    const closeCpu = cpuWindow(service.all());
    const firstEnqueueAt = Date.now();
    for (let i = 0; i < executions.length; i += ENQUEUE_BATCH) {
      await ctx.queues.enqueueExecutions(executions.slice(i, i + ENQUEUE_BATCH).map((e) => ({ executionId: e.id, attempt: 1, runAt: e.scheduledFor })));
    }
    const enqueueMs = Date.now() - firstEnqueueAt;
    const finished = await waitForCompletion(
      async () => (await ctx.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions WHERE status IN ('succeeded', 'failed')`)).rows[0].n,
      n,
      ctx.params.throughput.stallMs,
      () => service.assertAlive(),
    );
    const cpu: CpuReport = closeCpu();
    const rows = await ctx.pool.query<{ t: number; status: string }>(
      `SELECT (extract(epoch FROM finished_at) * 1000)::float8 AS t, status FROM executions WHERE status IN ('succeeded', 'failed')`,
    );
    const succeeded = rows.rows.filter((r) => r.status === 'succeeded').map((r) => r.t);
    const failed = rows.rows.length - succeeded.length;
    const target = await targetCheck(ctx, n);
    const problems = [...(failed > 0 ? [`${failed} executions failed`] : []), ...target.problems];
    const { figure, rate } = rateFigure(name, firstEnqueueAt, succeeded, n, problems, target.deliveries.duplicates > 0 ? `${target.deliveries.duplicates} repeated deliveries` : undefined);
    figure.target = TARGETS.throughputPerSecond;
    const unfinished = finished < n ? await unfinishedSample(ctx) : [];
    // What the processes logged (LOG_LEVEL=warn: warnings and errors only), kept when something went wrong.
    const logs = Object.fromEntries(service.all().filter((p) => p.lines() > 0).map((p) => [p.name, p.tail().slice(-4_000)]));
    if (unfinished.length > 0) {
      ctx.log(`${SCENARIO}: ${name}: unfinished executions: ${JSON.stringify(unfinished)}`);
      for (const [proc, text] of Object.entries(logs)) ctx.log(`${proc} logged:\n${text.slice(-1_500)}`);
    }
    return { name, figure, details: { executions: n, workspaces, finished, failed, enqueueMs, rate, deliveries: target.deliveries, cpu, unfinished, logs } };
  } finally {
    for (const e of extra) await service.removeExecutor(e);
  }
}

async function workerRun(
  ctx: BenchContext,
  name: string,
  script: string,
  enqueue: (items: { id: string; url: string }[]) => Promise<void>,
  prepare?: () => Promise<() => Promise<void>>,
): Promise<VariantRun> {
  const n = ctx.params.throughput.executions;
  const run = name;
  await ctx.pool.query(`CREATE TABLE IF NOT EXISTS bench_results (run text NOT NULL, id text NOT NULL, status int NOT NULL, finished_at timestamptz(3) NOT NULL)`);
  await ctx.pool.query(`DELETE FROM bench_results WHERE run = $1`, [run]);
  await ctx.target.reset();
  const worker = spawnTsx(name, script, {
    DATABASE_URL: ctx.databaseUrl,
    REDIS_URL,
    REDIS_PREFIX: ctx.redisPrefix,
    QUEUE: `bench_${name.replace(/[^a-z0-9]/g, '_')}`,
    CONCURRENCY: String(ctx.params.throughput.workerConcurrency),
    RUN: run,
    ...(ctx.args.profile
      ? { NODE_OPTIONS: `--import ${path.join(repoRoot, 'bench/tools/cpu-profile.mjs')}`, BENCH_PROFILE_DIR: PROFILE_DIR, BENCH_PROFILE_NAME: name }
      : {}),
  });
  try {
    await worker.waitForLine(/^READY$/, 120_000);
    const close = prepare ? await prepare() : async () => undefined;
    try {
      ctx.log(`${SCENARIO}: ${name}: ${n} executions`);
      const items = Array.from({ length: n }, (_, i) => ({ id: `${name}-${i}`, url: `${ctx.target.url}/hit` }));
      const closeCpu = cpuWindow([worker]);
      const firstEnqueueAt = Date.now();
      for (let i = 0; i < items.length; i += ENQUEUE_BATCH) await enqueue(items.slice(i, i + ENQUEUE_BATCH));
      const enqueueMs = Date.now() - firstEnqueueAt;
      const finished = await waitForCompletion(
        async () => (await ctx.pool.query<{ n: number }>(`SELECT count(DISTINCT id)::int AS n FROM bench_results WHERE run = $1`, [run])).rows[0].n,
        n,
        ctx.params.throughput.stallMs,
        () => {
          if (!worker.alive()) throw new Error(`${name} exited:\n${worker.tail()}`);
        },
      );
      const cpu = closeCpu();
      const rows = await ctx.pool.query<{ t: number; ok: boolean }>(
        `SELECT (extract(epoch FROM min(finished_at)) * 1000)::float8 AS t, bool_and(status = 200) AS ok FROM bench_results WHERE run = $1 GROUP BY id`,
        [run],
      );
      const bad = rows.rows.filter((r) => !r.ok).length;
      const target = await targetCheck(ctx, n);
      const problems = [...(bad > 0 ? [`${bad} calls did not get a 200`] : []), ...target.problems];
      const { figure, rate } = rateFigure(name, firstEnqueueAt, rows.rows.filter((r) => r.ok).map((r) => r.t), n, problems);
      return { name, figure, details: { executions: n, finished, enqueueMs, rate, deliveries: target.deliveries, cpu } };
    } finally {
      await close();
    }
  } finally {
    await worker.stop();
  }
}

function ceilingRun(ctx: BenchContext): Promise<VariantRun> {
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const queue = new Queue('bench_ceiling', { connection, prefix: ctx.redisPrefix });
  return workerRun(
    ctx,
    'ceiling',
    'bench/workers/ceiling.ts',
    async (items) => {
      // The same job options as the service's enqueueExecutions.
      await queue.addBulk(items.map((item) => ({ name: 'call', data: item, opts: { jobId: item.id, removeOnComplete: true, removeOnFail: true, delay: 0 } })));
    },
    async () => async () => {
      await queue.close();
      connection.disconnect();
    },
  );
}

function pgBossRun(ctx: BenchContext): Promise<VariantRun> {
  let boss: PgBoss | null = null;
  return workerRun(
    ctx,
    'pg-boss',
    'bench/workers/pgboss.ts',
    async (items) => {
      await boss!.insert(items.map((item) => ({ name: 'bench_pg_boss', data: item })));
    },
    async () => {
      // A producer only: the worker process owns maintenance and the schema.
      boss = new PgBoss({ connectionString: ctx.databaseUrl, max: 2, supervise: false, schedule: false, migrate: false });
      boss.on('error', () => undefined);
      await boss.start();
      return async () => {
        await boss!.stop({ graceful: false, wait: true });
      };
    },
  );
}

function graphileRun(ctx: BenchContext): Promise<VariantRun> {
  let utils: Awaited<ReturnType<typeof makeWorkerUtils>> | null = null;
  return workerRun(
    ctx,
    'graphile-worker',
    'bench/workers/graphile.ts',
    async (items) => {
      await utils!.addJobs(items.map((item) => ({ identifier: 'bench_graphile_worker', payload: item })));
    },
    async () => {
      utils = await makeWorkerUtils({ connectionString: ctx.databaseUrl });
      return async () => {
        await utils!.release();
      };
    },
  );
}

async function attempt(ctx: BenchContext, name: string, work: () => Promise<VariantRun>): Promise<VariantRun> {
  try {
    return await work();
  } catch (error) {
    ctx.log(`${SCENARIO}: ${name} failed: ${(error as Error).message}`);
    return { name, figure: { scenario: SCENARIO, name, value: null, unit: 'exec/s', problems: [`run failed: ${(error as Error).message.split('\n')[0]}`] }, details: { error: String((error as Error).stack) } };
  }
}

export async function throughput(ctx: BenchContext): Promise<ScenarioResult> {
  const p = ctx.params.throughput;
  await ensureService(ctx);
  const ceiling = await attempt(ctx, 'ceiling', () => ceilingRun(ctx));
  const services: VariantRun[] = [];
  for (const count of p.executorCounts) {
    for (const workspaces of p.workspaceCounts) {
      services.push(await attempt(ctx, serviceRunName(count, workspaces), () => serviceRun(ctx, count, workspaces)));
    }
  }
  const pgBoss = await attempt(ctx, 'pg-boss', () => pgBossRun(ctx));
  const graphile = await attempt(ctx, 'graphile-worker', () => graphileRun(ctx));
  const peers = [pgBoss, graphile];

  const figures: Figure[] = [ceiling.figure, ...services.map((s) => s.figure), ...peers.map((x) => x.figure)];
  const ratio = (v: VariantRun, target?: typeof TARGETS.ratioToCeiling): Figure =>
    derived({ scenario: SCENARIO, name: `${v.name} / ceiling`, unit: 'x', target }, [v.figure, ceiling.figure], (a, c) => a / c);
  for (const s of services) figures.push(ratio(s, TARGETS.ratioToCeiling));
  for (const peer of peers) figures.push(ratio(peer));
  // "Ahead of both peers": the better service run against the faster peer.
  figures.push(
    derived(
      { scenario: SCENARIO, name: 'best executor alone / best peer', unit: 'x', target: TARGETS.aheadOfPeer },
      [...services.map((s) => s.figure), ...peers.map((x) => x.figure)],
      (...values) => Math.max(...values.slice(0, services.length)) / Math.max(...values.slice(services.length)),
    ),
  );
  const details: Record<string, unknown> = {};
  for (const v of [ceiling, ...services, ...peers]) details[v.name] = v.details;
  return {
    figures,
    parameters: {
      executions: p.executions,
      executorCounts: p.executorCounts,
      workspaceCounts: p.workspaceCounts,
      workerConcurrency: p.workerConcurrency,
      enqueueBatch: ENQUEUE_BATCH,
      workload: 'GET to the local target answering 200 at once; service: seeded queued manual executions enqueued with the service producer, spread round-robin over the workspaces of the run',
      pgBoss: { loops: 5, batchSize: Math.max(1, Math.round(p.workerConcurrency / 5)) },
    },
    details,
  };
}
