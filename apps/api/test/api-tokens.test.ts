import request from 'supertest';
import { createRuntime, serviceLogger, type Runtime } from '@cronsvc/core';
import { ADMIN_TOKEN, aRecurringJob, type TestContext } from '@cronsvc/core/testing';
import { createApp } from '../src/app.js';
import { useApiApp } from './api-app.js';

// The API looks every request's token up in Postgres (the lookups of concurrent requests share
// one statement): no process keeps a token that was deleted.

let ctx: TestContext;
let app: ReturnType<typeof createApp>;
let other: Runtime;

// Registered before the fixture's hooks, so the second runtime closes before the context does.
afterAll(() => other?.close());
const api = useApiApp();
beforeAll(() => {
  ({ ctx, app } = api);
  // A second API process: its own runtime and connection pool.
  other = createRuntime(ctx.config, serviceLogger(ctx.config, 'other-api'));
});

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function workspaceWithJob(name: string): Promise<{ token: string }> {
  const { token } = await ctx.workspace(name);
  expect((await request(app).post('/v1/jobs').set(bearer(token)).send(aRecurringJob({ name: `job of ${name}` }))).status).toBe(201);
  return { token };
}

it('answers each of many concurrent requests with its own token’s workspace, and 401 for unknown tokens among them', async () => {
  const [x, y] = [await workspaceWithJob('x'), await workspaceWithJob('y')];
  const tokens = Array.from({ length: 30 }, (_, i) => [x.token, y.token, 'csk_unknown'][i % 3]);
  const answers = await Promise.all(tokens.map((token) => request(app).get('/v1/jobs').set(bearer(token))));
  answers.forEach((res, i) => {
    if (tokens[i] === 'csk_unknown') {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    } else {
      expect(res.status).toBe(200);
      expect(res.body.data.map((j: { name: string }) => j.name)).toEqual([tokens[i] === x.token ? 'job of x' : 'job of y']);
    }
  });
});

it('refuses a deleted token at once, in this API process and in another one', async () => {
  const ws = await request(app).post('/admin/v1/workspaces').set(admin).send({ name: 'revoked' });
  const extra = await request(app).post(`/admin/v1/workspaces/${ws.body.id}/tokens`).set(admin);
  const otherApp = createApp(other);
  expect((await request(app).get('/v1/jobs').set(bearer(extra.body.api_token))).status).toBe(200);
  expect((await request(otherApp).get('/v1/jobs').set(bearer(extra.body.api_token))).status).toBe(200);

  expect((await request(app).delete(`/admin/v1/tokens/${extra.body.id}`).set(admin)).status).toBe(204);
  expect((await request(app).get('/v1/jobs').set(bearer(extra.body.api_token))).status).toBe(401);
  expect((await request(otherApp).get('/v1/jobs').set(bearer(extra.body.api_token))).status).toBe(401);
  // The workspace's first token is untouched.
  expect((await request(otherApp).get('/v1/jobs').set(bearer(ws.body.api_token))).status).toBe(200);
});
