import request from 'supertest';
import { ADMIN_TOKEN, createTestContext, parsePrometheus, throwawayRedis, waitFor, type TestContext, type ThrowawayRedis } from '@cronsvc/core/testing';
import { createApp } from '../src/app.js';

// Readiness follows the queue store: a Redis of the test's own is stopped and started again.
let redis: ThrowawayRedis;
let ctx: TestContext;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  redis = await throwawayRedis();
  ctx = await createTestContext({ REDIS_URL: redis.url, QUEUE_BACKEND: 'redis' });
  app = createApp(ctx.runtime);
});
afterAll(async () => {
  await redis.start().catch(() => undefined);
  await ctx?.close();
  await redis?.stop();
});

it('turns not ready when Redis stops and ready again when it is back, while /healthz stays ok', async () => {
  expect((await request(app).get('/readyz')).body).toEqual({ status: 'ready', checks: { database: 'ok', queues: 'ok', migrations: 'ok' } });

  await redis.stop();
  const down = await waitFor(async () => {
    const res = await request(app).get('/readyz');
    return res.status === 503 ? res : undefined;
  }, { timeoutMs: 15_000, what: 'readiness to notice Redis is gone' });
  expect(down.body.status).toBe('not_ready');
  expect(down.body.checks.database).toBe('ok');
  // A fixed phrase, never the driver's message (which names the host and port).
  expect(down.body.checks.queues).toMatch(/^fail: (unreachable|timeout|connection lost)$/);
  expect((await request(app).get('/healthz')).status).toBe(200);
  // Metrics still answer, in time, with the queue gauges left out and readiness at 0.
  const started = Date.now();
  const metrics = await request(app).get('/metrics').set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  expect(metrics.status).toBe(200);
  expect(Date.now() - started).toBeLessThan(5_000);
  const scrape = parsePrometheus(metrics.text);
  expect(scrape.value('cronsvc_ready')).toBe(0);
  expect(scrape.value('cronsvc_readiness_check', { check: 'queues' })).toBe(0);
  expect(scrape.value('cronsvc_readiness_check', { check: 'database' })).toBe(1);
  expect(scrape.all('cronsvc_queue_jobs')).toEqual([]);

  await redis.start();
  const up = await waitFor(async () => {
    const res = await request(app).get('/readyz');
    return res.status === 200 ? res : undefined;
  }, { timeoutMs: 30_000, what: 'readiness once Redis is back' });
  expect(up.body).toEqual({ status: 'ready', checks: { database: 'ok', queues: 'ok', migrations: 'ok' } });
});
