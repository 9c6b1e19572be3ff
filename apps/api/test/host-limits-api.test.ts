import request from 'supertest';
import { useApiApp } from './api-app.js';

let auth: { Authorization: string };
let otherAuth: { Authorization: string };
let workspaceId: string;

const api = useApiApp();

beforeAll(async () => {
  const mine = await api.ctx.workspace('mine');
  ({ auth, id: workspaceId } = mine);
  otherAuth = (await api.ctx.workspace('theirs')).auth;
});

const put = (host: string, body: unknown, as = auth) => request(api.app).put(`/v1/host-limits/${host}`).set(as).send(body as object);
const paths = (res: request.Response) => (res.body.error.details as { path: string }[]).map((d) => d.path);

describe('PUT /v1/host-limits/:host', () => {
  it('answers 201 when the host had no limits, 200 when they are replaced (a limit left out is none)', async () => {
    const created = await put('API.Example.com', { max_concurrency: 5 });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      host: 'api.example.com', max_concurrency: 5, max_per_second: null, cooldown_until: null, created_at: expect.any(String), updated_at: created.body.created_at,
    });
    const replaced = await put('api.example.com', { max_per_second: 0.5 });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ host: 'api.example.com', max_concurrency: null, max_per_second: 0.5, created_at: created.body.created_at });
  });

  it('refuses a body without a limit, limits out of range, and a host with a port', async () => {
    expect(paths(await put('a.example.com', {}))).toEqual(['(body)']);
    const res = await put('a.example.com', { max_concurrency: 0, max_per_second: 20_000 });
    expect(res.status).toBe(400);
    expect(paths(res).sort()).toEqual(['max_concurrency', 'max_per_second']);
    expect(paths(await put('a.example.com:8443', { max_concurrency: 1 }))).toEqual(['host']);
  });
});

describe('GET and DELETE /v1/host-limits', () => {
  it("lists the workspace's hosts with limits or a cool-down running, never another workspace's", async () => {
    await put('b.example.com', { max_concurrency: 2 });
    await put('c.example.com', { max_concurrency: 3 }, otherAuth);
    // A cool-down of a host without limits, as a 429 with Retry-After records it.
    await api.ctx.runtime.pool.query(`INSERT INTO host_limits (workspace_id, host, cooldown_until) VALUES ($1, 'cooling.example.com', now() + interval '1 minute')`, [workspaceId]);
    await api.ctx.runtime.pool.query(`INSERT INTO host_limits (workspace_id, host, cooldown_until) VALUES ($1, 'cooled.example.com', now() - interval '1 minute')`, [workspaceId]);
    const list = await request(api.app).get('/v1/host-limits').set(auth);
    expect(list.status).toBe(200);
    expect(list.body.data.map((h: { host: string }) => h.host)).toEqual(['api.example.com', 'b.example.com', 'cooling.example.com']);
    expect(list.body.total).toBe(3);
    const cooling = list.body.data[2];
    expect(cooling).toMatchObject({ max_concurrency: null, max_per_second: null, cooldown_until: expect.any(String) });
    expect(Date.parse(cooling.cooldown_until)).toBeGreaterThan(Date.now());
    expect((await request(api.app).get('/v1/host-limits/cooled.example.com').set(auth)).status).toBe(404);
    expect((await request(api.app).get('/v1/host-limits/c.example.com').set(auth)).status).toBe(404);
  });

  it('deletes a host: its limits and cool-down, 404 afterwards', async () => {
    expect((await request(api.app).delete('/v1/host-limits/b.example.com').set(auth)).status).toBe(204);
    expect((await request(api.app).get('/v1/host-limits/b.example.com').set(auth)).status).toBe(404);
    expect((await request(api.app).delete('/v1/host-limits/b.example.com').set(auth)).status).toBe(404);
  });
});
