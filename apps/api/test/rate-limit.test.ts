import request from 'supertest';
import { createRuntime, loadConfig, serviceLogger, type Runtime } from '@cronsvc/core';
import { ADMIN_TOKEN, type TestContext } from '@cronsvc/core/testing';
import { createApp } from '../src/app.js';
import { useApiApp } from './api-app.js';

// RATE_LIMIT_PER_MINUTE: per API token, shared by every API process (through Redis, or through
// Postgres when the queues are there: this file also runs in the "queues on postgres" project).

const LIMIT = 5;
let ctx: TestContext;
let second: Runtime;
let apps: ReturnType<typeof createApp>[];

// Registered before the fixture's hooks, so the second runtime closes before the context does.
afterAll(() => second?.close());
const api = useApiApp({ RATE_LIMIT_PER_MINUTE: String(LIMIT) });
beforeAll(() => {
  ({ ctx } = api);
  // A second API process: its own runtime, connections and pools, on the same stores.
  second = createRuntime(ctx.config, serviceLogger(ctx.config, 'test'));
  apps = [api.app, createApp(second)];
});

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

it('counts a token across API processes, then answers 429 rate_limited with Retry-After and RateLimit headers', async () => {
  const { token } = await ctx.workspace();
  for (let i = 0; i < LIMIT; i += 1) {
    const res = await request(apps[i % 2]).get('/v1/jobs').set(bearer(token));
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-limit']).toBe(String(LIMIT));
    expect(res.headers['ratelimit-remaining']).toBe(String(LIMIT - i - 1));
    expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
  }
  const over = await request(apps[1]).post('/v1/jobs').set(bearer(token)).send({});
  expect(over.status).toBe(429);
  expect(over.body.error).toMatchObject({ code: 'rate_limited', message: expect.stringMatching(/more than 5 requests this minute/) });
  expect(over.headers['ratelimit-remaining']).toBe('0');
  expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(over.headers['retry-after']).toBe(over.headers['ratelimit-reset']);
});

it('limits each token on its own, even two tokens of one workspace', async () => {
  const { id, token } = await ctx.workspace();
  for (let i = 0; i <= LIMIT; i += 1) await request(apps[0]).get('/v1/secrets').set(bearer(token));
  expect((await request(apps[0]).get('/v1/secrets').set(bearer(token))).status).toBe(429);
  const issued = await request(apps[0]).post(`/admin/v1/workspaces/${id}/tokens`).set(bearer(ADMIN_TOKEN));
  expect(issued.status).toBe(201);
  expect((await request(apps[0]).get('/v1/secrets').set(bearer(issued.body.api_token))).status).toBe(200);
});

it('leaves the admin API, health and requests without a valid token out of the count', async () => {
  for (let i = 0; i < LIMIT * 2; i += 1) {
    expect((await request(apps[0]).get('/healthz')).headers).not.toHaveProperty('ratelimit-limit');
    expect((await request(apps[0]).post('/admin/v1/workspaces').set(bearer(ADMIN_TOKEN)).send({ name: `w${i}` })).status).toBe(201);
    expect((await request(apps[0]).get('/v1/jobs').set(bearer('csk_not_a_token'))).status).toBe(401);
  }
});

it('adds no header and no Redis call when RATE_LIMIT_PER_MINUTE is unset', async () => {
  const config = loadConfig({ ...ctx.env, RATE_LIMIT_PER_MINUTE: '' });
  expect(config.rateLimitPerMinute).toBeUndefined();
  const { token } = await ctx.workspace();
  // No Redis given at all: the app must not need it.
  const app = createApp({ ...ctx.runtime, config, redis: undefined });
  for (let i = 0; i < LIMIT * 2; i += 1) {
    const res = await request(app).get('/v1/jobs').set(bearer(token));
    expect(res.status).toBe(200);
    expect(res.headers).not.toHaveProperty('ratelimit-limit');
  }
});
