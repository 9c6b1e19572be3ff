import { createHash } from 'node:crypto';
import request from 'supertest';
import { aMonitorBody } from '@cronsvc/core/testing';
import { useApiApp } from './api-app.js';

let auth: { Authorization: string };
let otherAuth: { Authorization: string };

const BASE = 'https://cron.example.com';

const api = useApiApp({ PUBLIC_BASE_URL: BASE });

beforeAll(async () => {
  ({ auth } = await api.ctx.workspace('mine'));
  otherAuth = (await api.ctx.workspace('theirs')).auth;
});

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const create = (body: unknown, as = auth) => request(api.app).post('/v1/monitors').set(as).send(body as object);
const tokenOf = (monitor: { ping_url: string }) => monitor.ping_url.split('/').pop()!;
const get = async (id: string) => (await request(api.app).get(`/v1/monitors/${id}`).set(auth)).body;

describe('monitors', () => {
  it('creates a monitor in state new, with a ping URL on PUBLIC_BASE_URL', async () => {
    const res = await create({ name: 'nightly backup', expected_interval_sec: 86_400, grace_sec: 600 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^mon_/),
      name: 'nightly backup',
      expected_interval_sec: 86_400,
      schedule: null,
      grace_sec: 600,
      max_duration_sec: null,
      state: 'new',
      last_ping_at: null,
      next_expected_at: null,
      next_due_at: null,
      last_duration_ms: null,
      ping_url: expect.stringMatching(new RegExp(`^${BASE}/v1/ping/[A-Za-z0-9_-]{43}$`)),
      badge_url: expect.stringMatching(new RegExp(`^${BASE}/v1/badges/bdg_[0-9a-f]{64}\\.svg$`)),
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
    });
    expect((await create(aMonitorBody())).body.grace_sec).toBe(0);
  });

  it('stores the ping token encrypted with its SHA-256 beside it, never in clear, and shows the same URL on every read', async () => {
    const created = (await create(aMonitorBody({ name: 'at rest' }))).body;
    const token = tokenOf(created);
    const row = await api.ctx.runtime.db.monitor.findUniqueOrThrow({ where: { id: created.id } });
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row.pingToken).toMatch(/^enc2:/);
    expect(row.pingTokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect((await get(created.id)).ping_url).toBe(created.ping_url);
    expect((await request(api.app).get(`/v1/ping/${token}`)).status).toBe(200);
  });

  it.each([
    ['no name', { expected_interval_sec: 60 }, 'name'],
    ['no expected_interval_sec', { name: 'x' }, 'expected_interval_sec'],
    ['an interval of 0', { name: 'x', expected_interval_sec: 0 }, 'expected_interval_sec'],
    ['an interval over a year', { name: 'x', expected_interval_sec: 31_536_001 }, 'expected_interval_sec'],
    ['a fractional interval', { name: 'x', expected_interval_sec: 1.5 }, 'expected_interval_sec'],
    ['an interval as a string', { name: 'x', expected_interval_sec: '60' }, 'expected_interval_sec'],
    ['a negative grace', { name: 'x', expected_interval_sec: 60, grace_sec: -1 }, 'grace_sec'],
    ['an unknown field', { name: 'x', expected_interval_sec: 60, state: 'up' }, 'state'],
  ])('rejects %s with validation_failed at its path', async (_what, body, path) => {
    const res = await create(body);
    expect([res.status, res.body.error.code]).toEqual([400, 'validation_failed']);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('lists the workspace’s monitors, newest first, filtered by state', async () => {
    const fresh = (await api.ctx.workspace('lister')).auth;
    const a = (await create(aMonitorBody({ name: 'a' }), fresh)).body;
    const b = (await create(aMonitorBody({ name: 'b' }), fresh)).body;
    await request(api.app).post(`/v1/monitors/${a.id}/pause`).set(fresh).expect(200);
    expect((await request(api.app).get('/v1/monitors').set(fresh)).body).toMatchObject({ total: 2, limit: 50, offset: 0, data: [{ id: b.id }, { id: a.id }] });
    expect((await request(api.app).get('/v1/monitors?state=paused').set(fresh)).body).toMatchObject({ total: 1, data: [{ id: a.id, state: 'paused' }] });
    expect((await request(api.app).get('/v1/monitors?state=sleeping').set(fresh)).status).toBe(400);
  });

  it('PATCHes name, interval and grace, moving an up monitor’s deadline from its last ping', async () => {
    const m = (await create(aMonitorBody({ name: 'm' }))).body;
    await request(api.app).get(`/v1/ping/${tokenOf(m)}`).expect(200);
    const up = await get(m.id);
    const res = await request(api.app).patch(`/v1/monitors/${m.id}`).set(auth).send({ name: 'renamed', expected_interval_sec: 120, grace_sec: 30 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'renamed', expected_interval_sec: 120, grace_sec: 30, state: 'up' });
    expect(Date.parse(res.body.next_due_at) - Date.parse(up.last_ping_at)).toBe(150_000);
    expect((await request(api.app).patch(`/v1/monitors/${m.id}`).set(auth).send({})).status).toBe(400);
    expect((await request(api.app).patch(`/v1/monitors/${m.id}`).set(auth).send({ expected_interval_sec: -5 })).status).toBe(400);
    expect((await get(m.id)).expected_interval_sec).toBe(120);
  });

  it('pauses and resumes: paused never goes down, resume restarts the window, twice is 409', async () => {
    const m = (await create(aMonitorBody({ name: 'p' }))).body;
    const paused = await request(api.app).post(`/v1/monitors/${m.id}/pause`).set(auth);
    expect(paused.body).toMatchObject({ state: 'paused', next_due_at: null });
    expect((await request(api.app).post(`/v1/monitors/${m.id}/pause`).set(auth)).body.error.code).toBe('invalid_state');
    // Never pinged: back to new.
    expect((await request(api.app).post(`/v1/monitors/${m.id}/resume`).set(auth)).body).toMatchObject({ state: 'new', next_due_at: null });
    expect((await request(api.app).post(`/v1/monitors/${m.id}/resume`).set(auth)).status).toBe(409);
    await request(api.app).post(`/v1/ping/${tokenOf(m)}`).expect(200);
    await request(api.app).post(`/v1/monitors/${m.id}/pause`).set(auth).expect(200);
    // A ping while paused is recorded, but the monitor stays paused with no deadline.
    await request(api.app).get(`/v1/ping/${tokenOf(m)}`).expect(200);
    expect(await get(m.id)).toMatchObject({ state: 'paused', next_due_at: null, last_ping_at: expect.stringMatching(ISO_MS) });
    const before = Date.now();
    const resumed = (await request(api.app).post(`/v1/monitors/${m.id}/resume`).set(auth)).body;
    expect(resumed.state).toBe('up');
    expect(Date.parse(resumed.next_due_at)).toBeGreaterThanOrEqual(before + 60_000);
  });

  it('answers 404 for another workspace’s monitor, and deletes (204)', async () => {
    const m = (await create(aMonitorBody({ name: 'd' }))).body;
    for (const call of [request(api.app).get(`/v1/monitors/${m.id}`), request(api.app).post(`/v1/monitors/${m.id}/pause`), request(api.app).delete(`/v1/monitors/${m.id}`)]) {
      expect((await call.set(otherAuth)).status).toBe(404);
    }
    expect((await request(api.app).delete(`/v1/monitors/${m.id}`).set(auth)).status).toBe(204);
    expect((await request(api.app).get(`/v1/monitors/${m.id}`).set(auth)).status).toBe(404);
    // Its ping URL is gone with it.
    expect((await request(api.app).get(`/v1/ping/${tokenOf(m)}`)).status).toBe(404);
  });
});

describe('GET|POST /v1/ping/:token', () => {
  it('records a ping without an API token: new becomes up with a deadline', async () => {
    const m = (await create(aMonitorBody({ name: 'pinged', expected_interval_sec: 300, grace_sec: 60 }))).body;
    for (const call of [request(api.app).get(`/v1/ping/${tokenOf(m)}`), request(api.app).post(`/v1/ping/${tokenOf(m)}`).send('job log output\n')]) {
      const res = await call;
      expect([res.status, res.body]).toEqual([200, { ok: true }]);
    }
    const after = await get(m.id);
    expect(after.state).toBe('up');
    expect(Date.parse(after.next_due_at) - Date.parse(after.last_ping_at)).toBe(360_000);
  });

  it('answers 404 to an unknown or malformed token, also with an API token', async () => {
    for (const token of ['x'.repeat(43), 'short', '%2e%2e']) {
      const res = await request(api.app).post(`/v1/ping/${token}`).set(auth);
      expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
    }
  });

  it('takes JSON, text or no body alike, keeps the first 10 KiB of a longer one, and refuses a body over 100 KiB with 413', async () => {
    const m = (await create(aMonitorBody({ name: 'bodies' }))).body;
    await request(api.app).post(`/v1/ping/${tokenOf(m)}`).set('Content-Type', 'application/json').send('{"broken json').expect(200);
    await request(api.app).post(`/v1/ping/${tokenOf(m)}`).set('Content-Type', 'text/plain').send('x'.repeat(50 * 1024)).expect(200);
    const [long, broken] = (await request(api.app).get(`/v1/monitors/${m.id}/pings`).set(auth)).body.data;
    expect([long.body_preview.length, broken.body_preview]).toEqual([10 * 1024, '{"broken json']);
    const big = await request(api.app).post(`/v1/ping/${tokenOf(m)}`).set('Content-Type', 'text/plain').send('x'.repeat(100 * 1024 + 1));
    expect([big.status, big.body.error.code, big.body.error.message]).toEqual([413, 'payload_too_large', 'request body is larger than 100 KiB']);
  });

  it('answers other methods with 405 and Allow, not 401', async () => {
    const m = (await create(aMonitorBody({ name: 'methods' }))).body;
    for (const method of ['put', 'delete'] as const) {
      const res = await request(api.app)[method](`/v1/ping/${tokenOf(m)}`);
      expect([res.status, res.headers.allow]).toEqual([405, 'GET, POST']);
    }
  });
});
