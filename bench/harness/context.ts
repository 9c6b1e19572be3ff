// One bench run's resources: the throwaway database, the Redis prefix, the target process and
// the service, plus what every scenario needs to talk to them.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger, createQueuePool, createQueues, startEmbeddedPostgres, type EmbeddedPostgres, type Queues } from '@cronsvc/core';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { BenchArgs } from '../lib/args.js';
import type { Params } from '../lib/params.js';
import { cpuPercentOfCore } from '../lib/proc.js';
import { CLOCK_TICKS_PER_SECOND, cpuTicks, repoRoot, type Managed } from './processes.js';
import { jobShape, resetServiceData, seedJobs, workspaceId } from './seed.js';
import { startService, type Service } from './service.js';
import { createDatabase, databaseUrl, dropLeftovers, migrate, REDIS_URL, withDatabase } from './stores.js';
import { startTarget, type Target } from './target.js';

export const PROFILE_DIR = path.join(repoRoot, 'bench', 'results', 'profiles');

/**
 * Where a context's database and queues live: the shared Postgres and Redis (DATABASE_URL,
 * REDIS_URL), or, as `npm ci && npm start` runs on a machine with only Node.js, an embedded
 * PostgreSQL of the bench's own holding the queues too (BullMQ's PostgreSQL backend).
 */
export type BenchStores = 'shared' | 'embedded';

export interface BenchContext {
  args: BenchArgs;
  params: Params;
  stores: BenchStores;
  /** The embedded server of an `embedded` context (its data in a temporary directory). */
  embedded: EmbeddedPostgres | null;
  /** The pool under `queues` when they are on PostgreSQL. */
  queuePool: pg.Pool | null;
  dbName: string;
  databaseUrl: string;
  redisPrefix: string;
  apiToken: string;
  secretsKey: string;
  pool: pg.Pool;
  redis: Redis;
  target: Target;
  /** The service's own queue producer, used to enqueue seeded executions. */
  queues: Queues;
  service: Service | null;
  log(message: string): void;
}

/** The names the emergency cleanup needs, known before anything is created. */
export function runNames(): { dbName: string; redisPrefix: string } {
  return { dbName: `cronsvc_bench_${process.pid}`, redisPrefix: `cronsvc_bench_${process.pid}_${randomBytes(4).toString('hex')}` };
}

export async function openContext(args: BenchArgs, params: Params, names: { dbName: string; redisPrefix: string }, stores: BenchStores = 'shared'): Promise<BenchContext> {
  const log = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const dropped = await dropLeftovers(redis);
  if (dropped.length > 0) log(`dropped leftovers of killed runs: ${dropped.join(', ')}`);
  let embedded: EmbeddedPostgres | null = null;
  let url = databaseUrl(names.dbName);
  if (stores === 'embedded') {
    const dir = path.join(os.tmpdir(), `cronsvc-bench-pg-${process.pid}`);
    await rm(dir, { recursive: true, force: true });
    embedded = await startEmbeddedPostgres(dir, createLogger({ level: 'warn', production: false, service: 'bench' }));
    url = withDatabase(embedded.url, names.dbName);
    log(`embedded PostgreSQL on 127.0.0.1:${embedded.port}, data in ${dir}`);
    matchSharedPriority(dir, log);
  }
  await createDatabase(names.dbName, url);
  log(`database ${names.dbName}${stores === 'embedded' ? ' (embedded), queues on PostgreSQL' : `, redis prefix ${names.redisPrefix}`}; migrating`);
  await migrate(url, stores === 'embedded' ? { QUEUE_BACKEND: 'postgres' } : {});
  const target = await startTarget();
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  // Dropping the database WITH (FORCE) at the end terminates idle connections: not a crash.
  pool.on('error', (error) => log(`postgres pool: ${error.message}`));
  // The service's producer, exactly as the API and scheduler build it (Redis: maxRetriesPerRequest 1).
  const queuePool = stores === 'embedded' ? createQueuePool(url, 4) : null;
  const queues = queuePool
    ? createQueues({ backend: 'postgres', pool: queuePool }, { timeoutMs: 30_000 })
    : createQueues({ backend: 'redis', redis: new Redis(REDIS_URL, { maxRetriesPerRequest: 1 }), prefix: names.redisPrefix }, { timeoutMs: 30_000 });
  return {
    args,
    params,
    stores,
    embedded,
    queuePool,
    dbName: names.dbName,
    databaseUrl: url,
    redisPrefix: names.redisPrefix,
    // The service runs with NODE_ENV=production, which refuses a BOOTSTRAP_API_TOKEN under 32 characters.
    apiToken: `bench-${randomBytes(16).toString('hex')}`,
    secretsKey: randomBytes(32).toString('base64'),
    pool,
    redis,
    target,
    queues,
    service: null,
    log,
  };
}

/**
 * The shared Postgres and Redis of this machine run at a raised priority (nice -10), so on a
 * busy machine they get the CPU before the processes of the bench. The embedded server gets the
 * same niceness (its backends inherit it from the postmaster), or the two setups would not be
 * measured alike. Best effort: without the right to raise it, say so and go on.
 */
function matchSharedPriority(dir: string, log: (message: string) => void): void {
  const shared = execFileSync('ps', ['-o', 'ni=', '-C', 'postgres'], { encoding: 'utf8' }).split('\n').map(Number).filter(Number.isFinite);
  const nice = Math.min(0, ...shared);
  if (nice === 0) return;
  const postmaster = Number(readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  try {
    os.setPriority(postmaster, nice);
    log(`embedded PostgreSQL at nice ${nice}, as the shared server`);
  } catch (error) {
    log(`embedded PostgreSQL left at nice 0 (the shared server runs at ${nice}): ${(error as Error).message}`);
  }
}

/**
 * Closes an `embedded` context opened beside the run's own (whose cleanup is bench/run.ts's):
 * its service, connections, target, and the embedded server with its data directory.
 */
export async function closeEmbeddedContext(ctx: BenchContext): Promise<void> {
  await ctx.service?.stop();
  ctx.service = null;
  await ctx.target.process.stop();
  await ctx.queues.close().catch(() => undefined);
  await ctx.queuePool?.end().catch(() => undefined);
  ctx.redis.disconnect();
  await ctx.pool.end().catch(() => undefined);
  if (ctx.embedded) {
    await ctx.embedded.stop();
    await rm(ctx.embedded.dir, { recursive: true, force: true });
  }
}

/** The service with one executor, started once and shared by the scenarios. */
export async function ensureService(ctx: BenchContext): Promise<Service> {
  if (ctx.service) {
    ctx.service.assertAlive();
    return ctx.service;
  }
  ctx.log('starting the service (api, scheduler, executor, notifier)');
  const started = Date.now();
  ctx.service = await startService({
    databaseUrl: ctx.databaseUrl,
    redisPrefix: ctx.redisPrefix,
    apiToken: ctx.apiToken,
    secretsKey: ctx.secretsKey,
    extraEnv: ctx.args.serviceEnv,
    executors: 1,
    queueBackend: ctx.stores === 'embedded' ? 'postgres' : 'redis',
    profileDir: ctx.args.profile ? PROFILE_DIR : undefined,
  });
  ctx.log(`service up in ${Date.now() - started} ms; warming up`);
  await warmUp(ctx, 100);
  return ctx.service;
}

/** A setting the service runs with: --set if given, else the service's documented default. */
export function serviceSetting(ctx: BenchContext, name: string, fallback: number): number {
  const value = ctx.args.serviceEnv[name];
  return value !== undefined && value !== '' ? Number(value) : fallback;
}

/**
 * Runs `n` scheduled jobs through the whole pipeline (scheduler, queue, executor, target) and
 * waits for all of them: proves every process works and warms JIT and pools before measuring.
 */
export async function warmUp(ctx: BenchContext, n: number): Promise<void> {
  await resetServiceData(ctx.pool);
  await ctx.target.reset();
  const ws = await workspaceId(ctx.pool);
  await seedJobs(ctx.pool, {
    workspaceId: ws,
    count: n,
    namePrefix: 'warmup-',
    kind: 'scheduled',
    state: 'active',
    shape: jobShape(ctx.target.url),
    nextRunAtSql: `now() + interval '200 milliseconds'`,
    scheduleSql: `jsonb_build_object('run_at', to_char(s.t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`,
  });
  await waitUntil(
    'warm-up executions',
    async () => {
      const r = await ctx.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions WHERE status = 'succeeded'`);
      return r.rows[0].n >= n;
    },
    120_000,
    () => ctx.service?.assertAlive(),
  );
  await resetServiceData(ctx.pool);
  await ctx.target.reset();
}

export async function waitUntil(what: string, done: () => Promise<boolean>, timeoutMs: number, check?: () => void, everyMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    check?.();
    if (await done()) return;
    if (Date.now() > deadline) throw new Error(`${what}: not done within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `done()` until it reaches `expected`, or nothing moved for stallMs. */
export async function waitForCompletion(done: () => Promise<number>, expected: number, stallMs: number, check: () => void): Promise<number> {
  let last = -1;
  let movedAt = Date.now();
  for (;;) {
    check();
    const n = await done();
    if (n >= expected) return n;
    if (n !== last) {
      last = n;
      movedAt = Date.now();
    } else if (Date.now() - movedAt > stallMs) return n;
    await sleep(250);
  }
}


/** CPU ticks used so far by each Postgres backend serving the bench database. */
export async function postgresTicks(ctx: BenchContext): Promise<Map<number, number>> {
  const { rows } = await ctx.pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [ctx.dbName]);
  return new Map(rows.map((r) => [r.pid, cpuTicks(r.pid) ?? 0]));
}

/** Ticks between two postgresTicks readings; a backend that appeared in between counts whole. */
export function postgresTicksBetween(start: Map<number, number>, end: Map<number, number>): number {
  let ticks = 0;
  for (const [pid, at] of end) ticks += at - (start.get(pid) ?? 0);
  return ticks;
}

/** Busy and total jiffies of the whole machine, from /proc/stat. */
function systemTicks(): { busy: number; total: number } {
  const first = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = first.reduce((a, b) => a + b, 0);
  const idle = (first[3] ?? 0) + (first[4] ?? 0);
  return { busy: total - idle, total };
}

export interface CpuReport {
  windowMs: number;
  /** Per process: percent of one core over the window. */
  processes: Record<string, number | null>;
  /** All cores of the machine, busy percent (100 = every core busy): includes Postgres, Redis and other users. */
  machineBusyPercent: number | null;
}

/** Starts a CPU window over these processes and the machine; the returned function closes it. */
export function cpuWindow(processes: readonly Managed[]): () => CpuReport {
  const started = Date.now();
  const before = new Map(processes.map((p) => [p.name, cpuTicks(p.pid)]));
  const sysBefore = systemTicks();
  return () => {
    const windowMs = Date.now() - started;
    const sysAfter = systemTicks();
    const out: Record<string, number | null> = {};
    for (const p of processes) {
      const a = before.get(p.name);
      const b = cpuTicks(p.pid);
      out[p.name] = a === null || a === undefined || b === null ? null : cpuPercentOfCore(b - a, CLOCK_TICKS_PER_SECOND, windowMs);
    }
    const total = sysAfter.total - sysBefore.total;
    return { windowMs, processes: out, machineBusyPercent: total > 0 ? ((sysAfter.busy - sysBefore.busy) / total) * 100 : null };
  };
}
