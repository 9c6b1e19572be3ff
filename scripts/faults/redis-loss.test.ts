import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  createTestDatabase, productionEnv, startCompiledService, startTargetServer, throwawayRedis, uniqueName, waitFor, type CompiledService, type TargetServer, type TestDatabase,
  type ThrowawayRedis
} from '@cronsvc/core/testing';
import { callsByPath, createBurst, lagOf, until, type Burst } from './burst.js';
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
    (name): Record<string, string> => (name === 'api' ? { BOOTSTRAP_API_TOKEN: TOKEN } : {}),
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
