import request from 'supertest';
import { ADMIN_TOKEN, aDelivery, aJob, aMonitor, aOneTimeJob, aRecurringJob, aTriggerJob, capturingLogger, httpStep, parsePrometheus } from '@cronsvc/core/testing';
import { createApp } from '../src/app.js';
import { useApiApp } from './api-app.js';

const api = useApiApp();
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('health and readiness', () => {
  it('answers /healthz with the status of the process', async () => {
    const res = await request(api.app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('answers /readyz with the database, queue and migration checks of an API started alone', async () => {
    const res = await request(api.app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { database: 'ok', queues: 'ok', migrations: 'ok' } });
  });

  it('reports a migration the code knows but the database has not applied', async () => {
    await api.ctx.runtime.pool.query(`UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE migration_name = '20261127000000_worker_heartbeats'`);
    try {
      const res = await request(api.app).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body.status).toBe('not_ready');
      expect(res.body.checks).toMatchObject({ database: 'ok', queues: 'ok', migrations: 'fail: 1 not applied (20261127000000_worker_heartbeats)' });
    } finally {
      await api.ctx.runtime.pool.query(`UPDATE "_prisma_migrations" SET rolled_back_at = NULL WHERE migration_name = '20261127000000_worker_heartbeats'`);
    }
  });
});

describe('/metrics', () => {
  it('needs the admin token', async () => {
    for (const auth of [{}, { Authorization: 'Bearer wrong' }, { Authorization: `Basic ${Buffer.from(`x:${ADMIN_TOKEN}`).toString('base64')}` }]) {
      const res = await request(api.app).get('/metrics').set(auth);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
  });

  it('is not there without ADMIN_TOKEN', async () => {
    const app = createApp({ ...api.ctx.runtime, config: { ...api.ctx.config, adminToken: undefined } });
    const res = await request(app).get('/metrics').set(admin);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('serves the families of the service in the Prometheus text format, with what an operator alerts on', async () => {
    const { ctx } = api;
    const { id: workspaceId, token } = await ctx.workspace('metrics');
    const job = await aJob(ctx.runtime, workspaceId);
    await request(api.app).get(`/v1/jobs/${job.id}`).set('Authorization', `Bearer ${token}`).expect(200);
    const run = await request(api.app).post(`/v1/jobs/${job.id}/run-now`).set('Authorization', `Bearer ${token}`).expect(202);
    await ctx.runtime.pool.query(`UPDATE executions SET status = 'failed', finished_at = now(), dead_lettered_at = now() WHERE id = $1`, [run.body.id]);
    const late = await aJob(ctx.runtime, workspaceId, aRecurringJob({ name: 'late', schedule: { every_n_minutes: 5 } }));
    await ctx.runtime.pool.query(`UPDATE jobs SET next_run_at = now() - interval '90 seconds' WHERE id = $1`, [late.id]);
    await aDelivery(ctx.runtime, workspaceId, { status: 'pending', attempts: 0 });
    const monitor = await aMonitor(ctx.runtime, workspaceId);
    await ctx.runtime.pool.query(`UPDATE monitors SET state = 'down' WHERE id = $1`, [monitor.id]);

    const res = await request(api.app).get('/metrics').set(admin);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const scrape = parsePrometheus(res.text);
    for (const [family, type] of [
      ['cronsvc_executions_finished_total', 'counter'],
      ['cronsvc_attempts_total', 'counter'],
      ['cronsvc_attempt_duration_seconds', 'histogram'],
      ['cronsvc_fire_lag_seconds', 'histogram'],
      ['cronsvc_queue_jobs', 'gauge'],
      ['cronsvc_deliveries_total', 'counter'],
      ['cronsvc_http_requests_total', 'counter'],
      ['cronsvc_http_request_duration_seconds', 'histogram'],
      ['process_resident_memory_bytes', 'gauge'],
      ['nodejs_eventloop_lag_seconds', 'gauge'],
      ['cronsvc_dlq_executions', 'gauge'],
      ['cronsvc_oldest_due_fire_age_seconds', 'gauge'],
      ['cronsvc_deliveries_pending', 'gauge'],
      ['cronsvc_monitors_down', 'gauge'],
      ['cronsvc_ready', 'gauge'],
    ]) {
      expect([family, scrape.types.get(family)]).toEqual([family, type]);
    }
    for (const status of ['succeeded', 'failed']) expect(scrape.value('cronsvc_executions_finished_total', { status })).toBeGreaterThanOrEqual(0);
    for (const status of ['SUCCESS', 'TIMEOUT', 'CONNECTION_ERROR', 'HTTP_ERROR']) expect(scrape.value('cronsvc_attempts_total', { status })).toBeGreaterThanOrEqual(0);
    expect(scrape.value('cronsvc_queue_jobs', { queue: 'executions', state: 'waiting' })).toBeGreaterThanOrEqual(1);
    expect(scrape.value('cronsvc_queue_jobs', { queue: 'deliveries', state: 'failed' })).toBe(0);
    expect(scrape.value('cronsvc_dlq_executions')).toBe(1);
    expect(scrape.value('cronsvc_oldest_due_fire_age_seconds')).toBeGreaterThanOrEqual(90);
    expect(scrape.value('cronsvc_oldest_due_fire_age_seconds')).toBeLessThan(120);
    expect(scrape.value('cronsvc_deliveries_pending')).toBe(1);
    expect(scrape.value('cronsvc_monitors_down')).toBe(1);
    expect(scrape.value('cronsvc_ready')).toBe(1);
    expect(scrape.value('cronsvc_readiness_check', { check: 'queues' })).toBe(1);
    // Route patterns, never paths: the job's id is in no label.
    expect(scrape.value('cronsvc_http_requests_total', { method: 'GET', route: '/v1/jobs/:id', status_code: '200' })).toBe(1);
    expect(scrape.value('cronsvc_http_requests_total', { method: 'POST', route: '/v1/jobs/:id/run-now', status_code: '202' })).toBe(1);
    expect(scrape.value('cronsvc_http_request_duration_seconds_count', { method: 'GET', route: '/v1/jobs/:id' })).toBe(1);
    const labelValues = scrape.samples.flatMap((s) => Object.values(s.labels));
    expect(labelValues.filter((v) => /job_|exe_|wsp_|csk_/.test(v))).toEqual([]);
  });
});

describe('X-Request-Id', () => {
  it.each([
    ['a success', (r: request.Agent) => r.get('/healthz'), 200],
    ['a 404', (r: request.Agent) => r.get('/nowhere/at/all'), 404],
    ['a 401', (r: request.Agent) => r.get('/v1/jobs'), 401],
    ['a 400', (r: request.Agent) => r.post('/admin/v1/workspaces').set(admin).send({}), 400],
  ])('echoes a well-formed client id and makes one otherwise, on %s', async (_name, call, status) => {
    const agent = request.agent(api.app);
    const echoed = await call(agent).set('X-Request-Id', 'client:req-42.a_b');
    expect(echoed.status).toBe(status);
    expect(echoed.headers['x-request-id']).toBe('client:req-42.a_b');
    for (const bad of ['has spaces', 'x'.repeat(129), 'semi;colon', '']) {
      const made = await call(agent).set('X-Request-Id', bad);
      expect(made.status).toBe(status);
      expect(made.headers['x-request-id']).toMatch(UUID);
    }
    const none = await call(agent);
    expect(none.headers['x-request-id']).toMatch(UUID);
  });

  it('is recorded on the executions a request creates', async () => {
    const { ctx } = api;
    const { id: workspaceId, token } = await ctx.workspace('request ids');
    const auth = { Authorization: `Bearer ${token}` };
    const job = await aJob(ctx.runtime, workspaceId);
    const manual = await request(api.app).post(`/v1/jobs/${job.id}/run-now`).set(auth).set('X-Request-Id', 'run-now-1').expect(202);
    const oneTime = await request(api.app)
      .post('/v1/jobs')
      .set(auth)
      .set('X-Request-Id', 'create-1')
      .send(aOneTimeJob())
      .expect(201);
    const replay = await request(api.app).post(`/v1/executions/${manual.body.id}/replay`).set(auth).set('X-Request-Id', 'replay-1').expect(202);
    const trigger = await request(api.app).post('/v1/jobs').set(auth).send(aTriggerJob([httpStep('a', 'https://example.com/')])).expect(201);
    await request(api.app).post(`/v1/triggers/${trigger.body.webhook_token}`).set('X-Request-Id', 'trigger-1').send({ a: 1 }).expect(200);
    const { rows } = await ctx.runtime.pool.query<{ job_id: string; source: string; request_id: string | null }>(
      'SELECT job_id, source, request_id FROM executions WHERE workspace_id = $1 ORDER BY created_at',
      [workspaceId],
    );
    expect(rows).toEqual(
      expect.arrayContaining([
        { job_id: job.id, source: 'manual', request_id: 'run-now-1' },
        { job_id: oneTime.body.id, source: 'schedule', request_id: 'create-1' },
        { job_id: job.id, source: 'replay', request_id: 'replay-1' },
        { job_id: trigger.body.id, source: 'webhook', request_id: 'trigger-1' },
      ]),
    );
    expect(replay.body.id).not.toBe(manual.body.id);
  });
});

describe('the access log', () => {
  it('writes one http line per request with the route pattern, never a path holding a token or id', async () => {
    const { ctx } = api;
    const logs = capturingLogger(true, { level: 'http' });
    const app = createApp({ ...ctx.runtime, logger: logs.logger });
    const { id: workspaceId, token } = await ctx.workspace('access log');
    const job = await aJob(ctx.runtime, workspaceId);
    const secretish = 'tok_' + 'A'.repeat(40);
    await request(app).get(`/v1/jobs/${job.id}`).set('Authorization', `Bearer ${token}`).set('X-Request-Id', 'log-1').expect(200);
    await request(app).post(`/v1/triggers/${secretish}`).set('X-Request-Id', 'log-2').send({}).expect(200);
    await request(app).get(`/v1/approvals/${secretish}`).set('X-Request-Id', 'log-3').expect(404);
    await request(app).get(`/v1/ping/${secretish}`).set('X-Request-Id', 'log-4').expect(404);
    await request(app).get(`/v1/resume/${secretish}/more`).set('X-Request-Id', 'log-5').expect(404);

    const accessLines = logs.entries().filter((e) => e.msg === 'request');
    expect(accessLines).toEqual([
      { time: expect.any(String), level: 'http', msg: 'request', service: 'test', method: 'GET', route: '/v1/jobs/:id', status: 200, durationMs: expect.any(Number), request_id: 'log-1' },
      expect.objectContaining({ method: 'POST', route: '/v1/triggers/:token', status: 200, request_id: 'log-2' }),
      expect.objectContaining({ method: 'GET', route: '/v1/approvals/:token', status: 404, request_id: 'log-3' }),
      expect.objectContaining({ method: 'GET', route: '/v1/ping/:token', status: 404, request_id: 'log-4' }),
      expect.objectContaining({ method: 'GET', route: '(unmatched)', status: 404, request_id: 'log-5' }),
    ]);
    const all = logs.lines.join('\n');
    expect(all).not.toContain(secretish);
    expect(all).not.toContain(job.id);
    expect(all).not.toContain(token);
  });

  it('puts the request id on every line written while handling the request', async () => {
    const { ctx } = api;
    const logs = capturingLogger(true, { level: 'info' });
    const app = createApp({ ...ctx.runtime, logger: logs.logger });
    const { token } = await ctx.workspace('line ids');
    const auth = { Authorization: `Bearer ${token}` };
    const created = await request(app).post('/v1/jobs').set(auth).send(aTriggerJob([httpStep('a', 'https://example.com/')])).expect(201);
    await request(app).post(`/v1/jobs/${created.body.id}/pause`).set(auth).expect(200);
    // The trigger's body goes through its own raw parser before the handler logs.
    await request(app).post(`/v1/triggers/${created.body.webhook_token}`).set('X-Request-Id', 'paused-trigger').set('Content-Type', 'application/json').send('{"a":1}').expect(200);
    const ignored = logs.entries().filter((e) => e.msg === 'trigger ignored: the job is not active');
    expect(ignored).toEqual([expect.objectContaining({ request_id: 'paused-trigger', jobId: created.body.id })]);
  });
});
