import request from 'supertest';
import { ADMIN_TOKEN, aToken, waitFor } from '@cronsvc/core/testing';
import { useApiApp } from './api-app.js';
import { csrfOf } from './console-fixture.js';

// A workspace's own tokens (docs/API.md, "Tokens"): made with a scope, a name and an expiry,
// listed without the token, deleted; an expired or deleted token is refused at once and the
// console sessions opened with it end.
const api = useApiApp();
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function consoleSession(token: string): Promise<request.Agent> {
  const agent = request.agent(api.app);
  const form = await agent.get('/console/sign-in');
  expect((await agent.post('/console/sign-in').type('form').send({ _csrf: csrfOf(form.text), token })).status).toBe(303);
  expect((await agent.get('/console/jobs')).status).toBe(200);
  return agent;
}

it('makes a token with a name, scope and expiry, shows it once, and lists it by its prefix with last_used_at', async () => {
  const ws = await api.ctx.workspace('tokens');
  const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
  const made = await request(api.app).post('/v1/tokens').set(ws.auth).send({ name: 'dashboard', scope: 'read', expires_at: expiresAt });
  expect([made.status, made.body.error]).toEqual([201, undefined]);
  expect(made.body).toEqual({ id: expect.stringMatching(/^tok_/), name: 'dashboard', scope: 'read', expires_at: expiresAt, api_token: expect.stringMatching(/^csk_/), created_at: expect.any(String) });

  const listed = await request(api.app).get('/v1/tokens').set(ws.auth);
  expect(listed.status).toBe(200);
  expect(listed.body.total).toBe(2);
  const item = listed.body.data.find((t: { id: string }) => t.id === made.body.id);
  expect(item).toEqual({ id: made.body.id, name: 'dashboard', scope: 'read', prefix: made.body.api_token.slice(0, 12), created_at: made.body.created_at, last_used_at: null, expires_at: expiresAt });
  expect(JSON.stringify(listed.body)).not.toContain(made.body.api_token);

  expect((await request(api.app).get('/v1/jobs').set(bearer(made.body.api_token))).status).toBe(200);
  const used = await waitFor(async () => {
    const res = await request(api.app).get('/v1/tokens').set(ws.auth);
    return res.body.data.find((t: { id: string; last_used_at: string | null }) => t.id === made.body.id && t.last_used_at);
  });
  // Refreshed at most once a minute: a second use moments later leaves it as it is.
  expect((await request(api.app).get('/v1/jobs').set(bearer(made.body.api_token))).status).toBe(200);
  const again = await request(api.app).get('/v1/tokens').set(ws.auth);
  expect(again.body.data.find((t: { id: string }) => t.id === made.body.id).last_used_at).toBe(used.last_used_at);
});

it('refuses a bad scope or a past expiry with 400, and a read or run token making tokens with 403', async () => {
  const ws = await api.ctx.workspace('bad tokens');
  expect((await request(api.app).post('/v1/tokens').set(ws.auth).send({ scope: 'root' })).status).toBe(400);
  expect((await request(api.app).post('/v1/tokens').set(ws.auth).send({ expires_at: '2001-01-01T00:00:00Z' })).status).toBe(400);
  for (const scope of ['read', 'run']) {
    const { api_token: token, id } = await aToken(api.ctx.runtime, ws.id, { scope });
    const res = await request(api.app).post('/v1/tokens').set(bearer(token)).send({});
    expect([res.status, res.body.error.code]).toEqual([403, 'forbidden']);
    expect((await request(api.app).delete(`/v1/tokens/${id}`).set(bearer(token))).status).toBe(403);
  }
});

it('refuses a deleted token at once and ends the console sessions opened with it', async () => {
  const ws = await api.ctx.workspace('revoked');
  const made = await request(api.app).post('/v1/tokens').set(ws.auth).send({ name: 'laptop' });
  const agent = await consoleSession(made.body.api_token);
  expect((await request(api.app).delete(`/v1/tokens/${made.body.id}`).set(ws.auth)).status).toBe(204);
  expect((await request(api.app).get('/v1/jobs').set(bearer(made.body.api_token))).status).toBe(401);
  expect((await agent.get('/console/jobs')).status).toBe(303);
  // Another workspace's token is not found.
  const other = await api.ctx.workspace('other');
  const theirs = await aToken(api.ctx.runtime, other.id);
  expect((await request(api.app).delete(`/v1/tokens/${theirs.id}`).set(ws.auth)).status).toBe(404);
});

it('refuses an expired token at once and ends the console sessions opened with it', async () => {
  const ws = await api.ctx.workspace('expiring');
  const made = await request(api.app).post('/v1/tokens').set(ws.auth).send({ expires_at: new Date(Date.now() + 3_600_000).toISOString() });
  const agent = await consoleSession(made.body.api_token);
  expect((await request(api.app).get('/v1/jobs').set(bearer(made.body.api_token))).status).toBe(200);
  await api.ctx.runtime.db.apiToken.update({ where: { id: made.body.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
  expect((await request(api.app).get('/v1/jobs').set(bearer(made.body.api_token))).status).toBe(401);
  expect((await agent.get('/console/jobs')).status).toBe(303);
});

it('gives the admin endpoint the same fields', async () => {
  const ws = await api.ctx.workspace('admin made');
  const res = await request(api.app).post(`/admin/v1/workspaces/${ws.id}/tokens`).set(bearer(ADMIN_TOKEN)).send({ name: 'ci', scope: 'run' });
  expect(res.status).toBe(201);
  expect(res.body).toEqual({ id: expect.any(String), name: 'ci', scope: 'run', expires_at: null, api_token: expect.any(String), created_at: expect.any(String) });
  const denied = await request(api.app).delete(`/v1/jobs/job_x`).set(bearer(res.body.api_token));
  expect(denied.status).toBe(403);
});
