import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  aOneTimeJob, createTestDatabase, productionEnv, startCompiledService, startTargetServer, throwawayRedis, uniqueName, waitFor, type CompiledService, type TargetServer, type TestDatabase,
  type ThrowawayRedis
} from '@cronsvc/core/testing';
import { callsByPath, createBurst, inParallel, lagOf, until, type Burst } from './burst.js';
import { faultScale } from './scale.js';

// Redis loses the queues (docs/RELIABILITY.md, "Losing Redis or Postgres") a few seconds before a
// burst of scheduled jobs is due: their executions are in Postgres, their queue jobs were in
// Redis, waiting for their time. The scheduler sees the loss within a quarter of a second and
// queues them again, so each job is still called once and on time, where the periodic reconciler
// alone would call them up to two RECONCILE_INTERVAL_MS late. On a Redis of the test's own.

const TOKEN = `csk_${randomBytes(16).toString('hex')}`;
const FIRES = faultScale(300, 2_000);
// The scheduler fires SCHEDULER_LOOKAHEAD_MS (5 s) before the due time; the burst must be created before that.
const LEAD_MS = faultScale(9_000, 16_000);
const MAX_P99_LAG_MS = 1_500;

let database: TestDatabase;
let redis: ThrowawayRedis;
let target: TargetServer;
let service: CompiledService;

beforeAll(async () => {
  [database, redis, target] = await Promise.all([createTestDatabase(), throwawayRedis(), startTargetServer()]);
  service = await startCompiledService(
    productionEnv({ DATABASE_URL: database.url, REDIS_URL: redis.url, QUEUE_BACKEND: 'redis', REDIS_PREFIX: uniqueName('test') }),
    { api: 1, scheduler: 1, executor: 1 },
    // The reconciler's pass is out of reach of these tests: what is queued again is queued by the
    // scheduler's loss watch and by each process when Redis is back.
    (name): Record<string, string> => (name === 'api' ? { BOOTSTRAP_API_TOKEN: TOKEN } : name === 'scheduler' ? { RECONCILE_INTERVAL_MS: '600000' } : {}),
  );
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await target?.close();
  await redis?.stop();
  await database?.drop();
});

/** Keys Redis holds now. */
async function keyCount(): Promise<number> {
  const client = new Redis(redis.url, { maxRetriesPerRequest: 0 });
  try {
    return await client.dbsize();
  } finally {
    client.disconnect();
  }
}

/** A burst due LEAD_MS from now; `fault` runs `faultBeforeMs` before it is due, once the burst's queue jobs are in Redis. */
async function burstWithFault(tag: string, faultBeforeMs: number, fault: () => Promise<void>): Promise<Burst> {
  const dueAt = Date.now() + LEAD_MS;
  const burst = await createBurst(service.apis[0], TOKEN, target, tag, FIRES, dueAt);
  if (Date.now() > dueAt - 5_000) throw new Error(`creating ${FIRES} jobs took too long for the burst to be fired ahead of time; raise LEAD_MS`);
  await until(dueAt - faultBeforeMs);
  // What there is to lose: every fire's queue job, still delayed.
  expect(await keyCount()).toBeGreaterThan(FIRES);
  await fault();
  await waitFor(() => [...callsByPath(target, burst).values()].every((n) => n > 0), {
    timeoutMs: 60_000,
    what: () => `every job of ${tag} to be called (${[...callsByPath(target, burst).values()].filter((n) => n > 0).length} of ${FIRES}):\n${service.output().slice(-5_000)}`,
  });
  return burst;
}

function expectOnceAndOnTime(burst: Burst, tag: string): void {
  const doubled = [...callsByPath(target, burst)].filter(([, n]) => n !== 1);
  expect(doubled).toEqual([]);
  const lag = lagOf(target, burst);
  process.stdout.write(`${tag}: ${FIRES} fires, lag p50 ${lag.p50} ms, p99 ${lag.p99} ms, max ${lag.max} ms\n`);
  expect(lag.p99).toBeLessThan(MAX_P99_LAG_MS);
  expect(service.processes.filter((p) => p.app.child.exitCode !== null).map((p) => p.name)).toEqual([]);
}

it('calls every job of a burst once and on time when Redis is flushed 4 s before it is due', async () => {
  const burst = await burstWithFault('flushed', 4_000, async () => {
    const client = new Redis(redis.url);
    await client.flushall();
    client.disconnect();
  });
  expectOnceAndOnTime(burst, 'flushall');
}, 120_000);

it('calls every job of a burst once and on time when Redis restarts without its data 4 s before it is due', async () => {
  const burst = await burstWithFault('restarted', 4_000, async () => {
    await redis.stop();
    await redis.start();
  });
  expectOnceAndOnTime(burst, 'restart');
}, 120_000);

/** The JSON log lines a process wrote from `since` on. */
function linesSince(output: string, since: number): { level: string; msg: string }[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: string; msg: string; time: string })
    .filter((line) => Date.parse(line.time) >= since);
}

it('a Redis outage is one warning and one "back" line per process, and jobs accepted meanwhile are queued as soon as it is back', async () => {
  const JOBS = 20;
  const stoppedAt = Date.now();
  await redis.stop();
  const downAt = Date.now();
  const paths = Array.from({ length: JOBS }, (_, i) => `/outage-${i}`);
  // Accepted while Redis is down: their work waits in Postgres.
  const statuses = await inParallel(JOBS, 10, async (i) => {
    const res = await fetch(`${service.apis[0]}/v1/jobs`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(aOneTimeJob({ name: `outage-${i}`, request: { url: `${target.url}${paths[i]}` } })),
    });
    await res.arrayBuffer();
    return res.status;
  });
  expect(statuses.every((s) => s === 201)).toBe(true);
  // Down long enough for every connection to fail several reconnections.
  await until(downAt + 5_000);
  expect(target.received.filter((r) => paths.includes(r.url))).toEqual([]);
  await redis.start();
  const backAt = Date.now();
  const calls = () => paths.map((path) => target.received.filter((r) => r.url === path).length);
  // The reconciler does not run in these tests: the calls come from the queueing on Redis's return.
  await waitFor(() => calls().every((n) => n > 0), { timeoutMs: 30_000, what: () => `every job accepted during the outage to be called:\n${service.output().slice(-5_000)}` });
  process.stdout.write(`Redis down ${backAt - downAt} ms: the ${JOBS} jobs accepted meanwhile were called within ${Date.now() - backAt} ms of its return\n`);
  expect(calls().every((n) => n === 1)).toBe(true);
  // Each process gets its connections back on its own retry timer: wait for every "back" line.
  await waitFor(() => service.processes.every((p) => linesSince(p.app.output(), stoppedAt).some((l) => l.msg === 'Redis is back')), {
    what: () => `each process to log that Redis is back:\n${service.output().slice(-5_000)}`,
  });
  for (const p of service.processes) {
    const lines = linesSince(p.app.output(), stoppedAt);
    const warnings = lines.filter((l) => l.level === 'warn' || l.level === 'error');
    expect({ process: p.name, warnings: warnings.map((l) => l.msg) }).toEqual({ process: p.name, warnings: ['Redis cannot be reached; work waits in Postgres and is queued when it is back'] });
    expect(lines.filter((l) => l.msg === 'Redis is back')).toHaveLength(1);
  }
}, 120_000);
