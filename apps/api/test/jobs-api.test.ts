import request from 'supertest';
import { aCronJob, aOneTimeJob, aRecurringJob, aScheduledJob } from '@cronsvc/core/testing';
import { createApp } from '../src/app.js';
import { useApiApp } from './api-app.js';

let auth: { Authorization: string };

const api = useApiApp();

beforeAll(async () => {
  ({ auth } = await api.ctx.workspace());
});

const target = 'https://example.com/hook';
const post = (body: unknown) => request(api.app).post('/v1/jobs').set(auth).send(body as object);

describe('POST /v1/jobs', () => {
  it('creates a cron job with every default filled in and next_run_at on the schedule', async () => {
    const res = await post(aCronJob({ name: 'nightly', schedule: { cron: '0 3 * * *' }, request: { url: target } }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^job_/),
      name: 'nightly',
      kind: 'cron',
      state: 'active',
      schedule: { cron: '0 3 * * *' },
      request: { url: target, method: 'GET', headers: {}, body: null, timeout_seconds: 30, success_statuses: [200, 201, 202, 204] },
      retry_policy: { max_attempts: 3, retry_on_statuses: [429, 500, 502, 503, 504] },
      max_concurrent_executions: 0,
      on_success_url: null,
      on_failure_url: null,
      notification_override: 'inherit',
    });
    const next = new Date(res.body.next_run_at);
    expect(next.getUTCHours()).toBe(3);
    expect(next.getUTCMinutes()).toBe(0);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(res.body.updated_at).toBe(res.body.created_at);
  });

  it('creates a recurring job whose first run is one period after creation', async () => {
    const res = await post(aRecurringJob({ schedule: { every_n_minutes: 15 } }));
    expect(res.status).toBe(201);
    expect(new Date(res.body.next_run_at).getTime() - new Date(res.body.created_at).getTime()).toBe(15 * 60_000);
  });

  it('creates a scheduled job that runs at run_at', async () => {
    const runAt = new Date(Date.now() + 3600_000).toISOString();
    const res = await post(aScheduledJob({ schedule: { run_at: runAt }, request: { url: target, method: 'POST', body: { a: 1 } } }));
    expect(res.status).toBe(201);
    expect(res.body.next_run_at).toBe(runAt);
  });

  it('creates a one_time job with no next_run_at and queues one execution at once', async () => {
    const res = await post(aOneTimeJob({ name: 'once' }));
    expect(res.status).toBe(201);
    expect(res.body.next_run_at).toBeNull();
    const executions = await request(api.app).get(`/v1/jobs/${res.body.id}/executions`).set(auth);
    expect(executions.body.total).toBe(1);
    expect(executions.body.data[0]).toMatchObject({ status: 'queued', source: 'schedule', job_name: 'once' });
  });

  it('keeps a draft job unscheduled until PATCHed to active', async () => {
    const res = await post(aCronJob({ state: 'draft' }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ state: 'draft', next_run_at: null });
    const active = await request(api.app).patch(`/v1/jobs/${res.body.id}`).set(auth).send({ state: 'active' });
    expect(active.status).toBe(200);
    expect(active.body.state).toBe('active');
    expect(active.body.next_run_at).not.toBeNull();
  });

  it('rejects bad input with one validation_failed listing every bad path, and stores nothing', async () => {
    const before = (await request(api.app).get('/v1/jobs').set(auth)).body.total;
    const res = await post({
      name: '',
      kind: 'cron',
      schedule: { cron: '61 * * * *', timezone: 'Europe/Paris' },
      request: { url: 'ftp://example.com', method: 'HEAD', timeout_seconds: 301, success_statuses: [99] },
      retry_policy: { max_attempts: 11 },
      colour: 'blue',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    const paths = res.body.error.details.map((d: { path: string }) => d.path).sort();
    expect(paths).toEqual(
      [
        'colour', 'name', 'request.method', 'request.success_statuses[0]', 'request.timeout_seconds', 'request.url',
        'retry_policy.max_attempts', 'schedule.cron', 'schedule.timezone',
      ].sort(),
    );
    expect((await request(api.app).get('/v1/jobs').set(auth)).body.total).toBe(before);
  });

  it.each([
    ['recurring without a schedule', { name: 'x', kind: 'recurring', request: { url: target } }, 'schedule'],
    ['one_time with a schedule', aOneTimeJob({ schedule: { cron: '* * * * *' } }), 'schedule'],
    ['scheduled in the past', aScheduledJob({ schedule: { run_at: '2020-01-01T00:00:00Z' } }), 'schedule.run_at'],
    ['an unknown kind', { name: 'x', kind: 'hourly', request: { url: target } }, 'kind'],
    ['an unknown request field', aCronJob({ request: { verb: 'GET' } }), 'request.verb'],
    ['a wrapping cron range', aCronJob({ schedule: { cron: '0 0 * * FRI-MON' } }), 'schedule.cron'],
    ['a cron that never fires', aCronJob({ schedule: { cron: '0 0 30 2 *' } }), 'schedule.cron'],
    ['an invalid response_matcher regex', aCronJob({ request: { response_matcher: { success_pattern: '(' } } }), 'request.response_matcher'],
    ['a localhost target', aCronJob({ request: { url: 'http://localhost:8080/' } }), 'request.url'],
    ['a string where a number belongs', aRecurringJob({ schedule: { every_n_minutes: '5' } }), 'schedule.every_n_minutes'],
  ])('rejects %s', async (_what, body, path) => {
    const guarded = createApp({ ...api.ctx.runtime, config: { ...api.ctx.config, allowPrivateTargets: false } });
    const res = await request(guarded).post('/v1/jobs').set(auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('answers invalid_json for a malformed body and 413 for a body over 1 MiB', async () => {
    const bad = await request(api.app).post('/v1/jobs').set(auth).set('Content-Type', 'application/json').send('{"name": ');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: { code: 'invalid_json', message: expect.any(String) } });
    const big = await post(aCronJob({ request: { method: 'POST', body: 'x'.repeat(1024 * 1024 + 10) } }));
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('payload_too_large');
  });

  it('returns the existing job with 200 for a repeated Idempotency-Key', async () => {
    const first = await post(aCronJob({ name: 'nightly' })).set('Idempotency-Key', 'key-1');
    const again = await post(aCronJob({ name: 'other' })).set('Idempotency-Key', 'key-1');
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.name).toBe('nightly');
  });
});

describe('GET /v1/jobs', () => {
  let ws: { Authorization: string };
  beforeAll(async () => {
    ws = (await api.ctx.workspace('lists')).auth;
    for (let i = 0; i < 5; i++) {
      await request(api.app).post('/v1/jobs').set(ws).send(aCronJob({ name: `Report ${i}`, state: i % 2 ? 'paused' : 'active' }));
    }
    await request(api.app).post('/v1/jobs').set(ws).send(aRecurringJob({ name: 'ping' }));
  });

  it('lists as { data, total }, newest first, with paging', async () => {
    const all = await request(api.app).get('/v1/jobs').set(ws);
    expect(all.body).toMatchObject({ total: 6, limit: 50, offset: 0 });
    expect(all.body.data.map((j: { name: string }) => j.name)).toEqual(['ping', 'Report 4', 'Report 3', 'Report 2', 'Report 1', 'Report 0']);
    const page = await request(api.app).get('/v1/jobs?limit=2&offset=2').set(ws);
    expect(page.body).toMatchObject({ total: 6, limit: 2, offset: 2 });
    expect(page.body.data.map((j: { name: string }) => j.name)).toEqual(['Report 3', 'Report 2']);
  });

  it('filters by state, kind and case-insensitive name', async () => {
    expect((await request(api.app).get('/v1/jobs?state=paused').set(ws)).body.total).toBe(2);
    expect((await request(api.app).get('/v1/jobs?kind=recurring').set(ws)).body.data[0].name).toBe('ping');
    expect((await request(api.app).get('/v1/jobs?name=REPORT').set(ws)).body.total).toBe(5);
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'state=running', 'kind=x'])('rejects %s with 400', async (q) => {
    const res = await request(api.app).get(`/v1/jobs?${q}`).set(ws);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
  });
});

describe('PATCH /v1/jobs/:id', () => {
  it('changes only included fields and merges request and retry_policy one level', async () => {
    const created = (await post(aCronJob({ name: 'nightly', schedule: { cron: '0 3 * * *' }, request: { url: target, method: 'POST', headers: { A: '1' }, timeout_seconds: 10 } }))).body;
    const res = await request(api.app)
      .patch(`/v1/jobs/${created.id}`)
      .set(auth)
      .send({ request: { timeout_seconds: 20, headers: { B: '2' } }, retry_policy: { max_attempts: 5 } });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('nightly');
    expect(res.body.schedule).toEqual({ cron: '0 3 * * *' });
    expect(res.body.request).toMatchObject({ url: target, method: 'POST', timeout_seconds: 20, headers: { B: '2' } });
    expect(res.body.retry_policy).toEqual({ max_attempts: 5, retry_on_statuses: [429, 500, 502, 503, 504] });
    expect(res.body.next_run_at).toBe(created.next_run_at);
  });

  it('returns an inner field set to null to its default', async () => {
    const created = (await post(aCronJob({ request: { method: 'PUT', timeout_seconds: 10 } }))).body;
    const res = await request(api.app).patch(`/v1/jobs/${created.id}`).set(auth).send({ request: { method: null, timeout_seconds: null } });
    expect(res.body.request).toMatchObject({ method: 'GET', timeout_seconds: 30 });
  });

  it('recomputes next_run_at when the schedule changes', async () => {
    const created = (await post(aCronJob())).body;
    const res = await request(api.app).patch(`/v1/jobs/${created.id}`).set(auth).send({ schedule: { cron: '30 * * * *' } });
    expect(new Date(res.body.next_run_at).getUTCMinutes()).toBe(30);
    expect(new Date(res.body.next_run_at).getTime() - Date.now()).toBeLessThanOrEqual(3600_000);
  });

  it('switches kind with the new shape and rejects an invalid result without changing anything', async () => {
    const created = (await post(aCronJob())).body;
    const bad = await request(api.app).patch(`/v1/jobs/${created.id}`).set(auth).send({ kind: 'recurring', request: { timeout_seconds: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['request.timeout_seconds', 'schedule']);
    expect((await request(api.app).get(`/v1/jobs/${created.id}`).set(auth)).body).toEqual(created);
    const good = await request(api.app).patch(`/v1/jobs/${created.id}`).set(auth).send({ kind: 'recurring', schedule: { every_n_minutes: 10 } });
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ kind: 'recurring', schedule: { every_n_minutes: 10 } });
  });

  it('rejects unknown fields, an empty patch and schedule.timezone', async () => {
    const created = (await post(aCronJob())).body;
    for (const body of [{ id: 'job_x' }, {}, { schedule: { timezone: 'UTC' } }]) {
      const res = await request(api.app).patch(`/v1/jobs/${created.id}`).set(auth).send(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
  });

  it('reschedules a completed scheduled job given a future run_at and state active', async () => {
    const created = (await post(aScheduledJob())).body;
    await api.ctx.runtime.db.job.update({
      where: { id: created.id },
      data: { state: 'completed', nextRunAt: null, schedule: { run_at: new Date(Date.now() - 60_000).toISOString() } },
    });
    const stale = await request(api.app).patch(`/v1/jobs/${created.id}`).set(auth).send({ state: 'active' });
    expect(stale.status).toBe(400);
    expect(stale.body.error.details.map((d: { path: string }) => d.path)).toEqual(['schedule.run_at']);
    const renamed = await request(api.app).patch(`/v1/jobs/${created.id}`).set(auth).send({ name: 'still completed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.state).toBe('completed');
    const runAt = new Date(Date.now() + 120_000).toISOString();
    const res = await request(api.app).patch(`/v1/jobs/${created.id}`).set(auth).send({ state: 'active', schedule: { run_at: runAt } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'active', next_run_at: runAt });
  });
});

describe('pause, resume, run-now and delete', () => {
  it('pauses an active job and resumes it with next_run_at recomputed from now; repeats are 409', async () => {
    const created = (await post(aRecurringJob({ schedule: { every_n_minutes: 7 } }))).body;
    const paused = await request(api.app).post(`/v1/jobs/${created.id}/pause`).set(auth);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ state: 'paused', next_run_at: null });
    const again = await request(api.app).post(`/v1/jobs/${created.id}/pause`).set(auth);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_state');
    const before = Date.now();
    const resumed = await request(api.app).post(`/v1/jobs/${created.id}/resume`).set(auth);
    expect(resumed.status).toBe(200);
    expect(resumed.body.state).toBe('active');
    const next = new Date(resumed.body.next_run_at).getTime();
    expect(next).toBeGreaterThanOrEqual(before + 7 * 60_000 - 5);
    expect(next).toBeLessThanOrEqual(Date.now() + 7 * 60_000);
    expect((await request(api.app).post(`/v1/jobs/${created.id}/resume`).set(auth)).status).toBe(409);
  });

  it('run-now answers 202 with a queued manual execution and leaves the schedule alone', async () => {
    const created = (await post(aCronJob())).body;
    const res = await request(api.app).post(`/v1/jobs/${created.id}/run-now`).set(auth);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^exe_/), job_id: created.id, status: 'queued', source: 'manual' });
    expect((await request(api.app).get(`/v1/jobs/${created.id}`).set(auth)).body.next_run_at).toBe(created.next_run_at);
    const one = await request(api.app).get(`/v1/executions/${res.body.id}`).set(auth);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: res.body.id, attempts: [] });
  });

  it('deletes the job with its executions; a second delete is 404', async () => {
    const created = (await post(aCronJob())).body;
    const exe = (await request(api.app).post(`/v1/jobs/${created.id}/run-now`).set(auth)).body;
    expect((await request(api.app).delete(`/v1/jobs/${created.id}`).set(auth)).status).toBe(204);
    expect((await request(api.app).get(`/v1/jobs/${created.id}`).set(auth)).status).toBe(404);
    expect((await request(api.app).get(`/v1/executions/${exe.id}`).set(auth)).status).toBe(404);
    expect(await api.ctx.runtime.db.execution.count({ where: { jobId: created.id } })).toBe(0);
    expect((await request(api.app).delete(`/v1/jobs/${created.id}`).set(auth)).status).toBe(404);
  });

  it('answers not_found in the error envelope for unknown ids and routes', async () => {
    for (const path of ['/v1/jobs/job_missing', '/v1/executions/exe_missing', '/v1/nothing-here']) {
      const res = await request(api.app).get(path).set(auth);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});

describe('GET /v1/executions', () => {
  it('pages executions newest scheduled first and rejects bad parameters', async () => {
    const ws = (await api.ctx.workspace('exe-list')).auth;
    const job = (await request(api.app).post('/v1/jobs').set(ws).send(aCronJob())).body;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await request(api.app).post(`/v1/jobs/${job.id}/run-now`).set(ws)).body.id);
    const page = await request(api.app).get('/v1/executions?limit=2').set(ws);
    expect(page.body).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(page.body.data.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[1]]);
    const rest = await request(api.app).get('/v1/executions?limit=2&offset=2').set(ws);
    expect(rest.body.data.map((e: { id: string }) => e.id)).toEqual([ids[0]]);
    for (const q of ['limit=0', 'limit=101', 'status=done', 'sort=name', 'order=up', 'from=yesterday']) {
      expect((await request(api.app).get(`/v1/executions?${q}`).set(ws)).status).toBe(400);
    }
  });
});

describe('request bodies', () => {
  it('answers 400 validation_failed, not 500, to a create or PATCH with no body', async () => {
    const created = await post(aCronJob());
    for (const res of [await request(api.app).post('/v1/jobs').set(auth), await request(api.app).patch(`/v1/jobs/${created.body.id}`).set(auth)]) {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
  });

  it('returns the job of a used Idempotency-Key even when the repeated body is invalid', async () => {
    const first = await post(aCronJob()).set('Idempotency-Key', 'key-invalid-repeat');
    const again = await post({ name: '' }).set('Idempotency-Key', 'key-invalid-repeat');
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
  });
});
