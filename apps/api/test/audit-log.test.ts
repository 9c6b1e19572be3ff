import request from 'supertest';
import { pruneAuditEvents } from '@cronsvc/core';
import { ADMIN_TOKEN, aOneTimeExecution, aRecurringJob, aToken } from '@cronsvc/core/testing';
import { useApiApp } from './api-app.js';
import { csrfOf } from './console-fixture.js';

// The audit log (docs/API.md, "Audit log"): each change writes its event in its own transaction,
// from the actor that made it; names of fields, never values.
const api = useApiApp();
const SECRET_VALUE = 'audit-secret-value-81f3';
const SECRET_VALUE_2 = 'audit-secret-value-2-c4d9';

interface Event {
  id: string;
  action: string;
  target_type: string;
  target_id: string | null;
  actor: { type: string; token_id: string | null; name: string | null };
  request_id: string | null;
  changed_fields: string[];
  created_at: string;
}

it('records each change through the API, newest first, with its actor, request id and fields, and filters them', async () => {
  const ws = await api.ctx.workspace('audited');
  const deployer = await aToken(api.ctx.runtime, ws.id, { name: 'deploy pipeline' });
  const auth = { Authorization: `Bearer ${deployer.api_token}`, 'X-Request-Id': 'req-audit-1' };
  const job = (await request(api.app).post('/v1/jobs').set(auth).send(aRecurringJob({ name: 'audited job' }))).body;
  expect((await request(api.app).patch(`/v1/jobs/${job.id}`).set(auth).send({ name: 'renamed', retry_policy: { max_attempts: 2 } })).status).toBe(200);
  expect((await request(api.app).post(`/v1/jobs/${job.id}/pause`).set(auth)).status).toBe(200);
  expect((await request(api.app).post(`/v1/jobs/${job.id}/resume`).set(auth)).status).toBe(200);
  const run = await request(api.app).post(`/v1/jobs/${job.id}/run-now`).set(auth);
  expect(run.status).toBe(202);
  expect((await request(api.app).post(`/v1/executions/${run.body.id}/replay`).set(auth)).status).toBe(202);
  const secret = (await request(api.app).post('/v1/secrets').set(auth).send({ name: 'db_password', value: SECRET_VALUE })).body;
  expect((await request(api.app).patch(`/v1/secrets/${secret.id}`).set(auth).send({ value: SECRET_VALUE_2 })).status).toBe(200);
  expect((await request(api.app).delete(`/v1/secrets/${secret.id}`).set(auth)).status).toBe(204);
  expect((await request(api.app).post('/v1/signing-key/rotate').set(auth)).status).toBe(200);
  const made = (await request(api.app).post('/v1/tokens').set(auth).send({ name: 'laptop', scope: 'read' })).body;
  expect((await request(api.app).delete(`/v1/tokens/${made.id}`).set(auth)).status).toBe(204);
  expect((await request(api.app).delete(`/v1/jobs/${job.id}`).set(auth)).status).toBe(204);

  // A read token reads the log.
  const reader = await aToken(api.ctx.runtime, ws.id, { scope: 'read' });
  const res = await request(api.app).get('/v1/audit-events?limit=100').set({ Authorization: `Bearer ${reader.api_token}` });
  expect(res.status).toBe(200);
  const events = res.body.data as Event[];
  expect(events.map((e) => e.action)).toEqual([
    'job.deleted', 'token.deleted', 'token.created', 'signing_key.rotated', 'secret.deleted', 'secret.updated', 'secret.created', 'execution.replayed', 'job.run_now',
    'job.resumed', 'job.paused', 'job.updated', 'job.created',
  ]);
  expect(res.body.total).toBe(13);
  for (const e of events) {
    expect(e).toEqual({
      id: expect.stringMatching(/^aud_/), action: e.action, target_type: e.target_type, target_id: e.target_id, actor: { type: 'token', token_id: deployer.id, name: 'deploy pipeline' },
      request_id: 'req-audit-1', changed_fields: e.changed_fields, created_at: expect.any(String),
    });
  }
  const byAction = new Map(events.map((e) => [e.action, e]));
  expect(byAction.get('job.updated')).toMatchObject({ target_type: 'job', target_id: job.id, changed_fields: ['name', 'retry_policy'] });
  expect(byAction.get('job.created')?.changed_fields).toEqual(expect.arrayContaining(['name', 'kind', 'request']));
  expect(byAction.get('job.run_now')).toMatchObject({ target_id: job.id });
  expect(byAction.get('execution.replayed')).toMatchObject({ target_type: 'execution', target_id: run.body.id });
  expect(byAction.get('secret.updated')).toMatchObject({ target_id: secret.id, changed_fields: ['value'] });

  const filtered = await request(api.app).get(`/v1/audit-events?action=job.paused&target_id=${job.id}`).set(auth);
  expect(filtered.body.data.map((e: Event) => e.action)).toEqual(['job.paused']);
  const created = byAction.get('job.created')!.created_at;
  const fromTo = await request(api.app).get(`/v1/audit-events?from=${created}&to=${created}`).set(auth);
  expect(fromTo.body.data.map((e: Event) => e.action)).toContain('job.created');
  expect((await request(api.app).get('/v1/audit-events?from=yesterday').set(auth)).status).toBe(400);
  // Another workspace sees none of it.
  const other = await api.ctx.workspace('other');
  expect((await request(api.app).get('/v1/audit-events').set(other.auth)).body.total).toBe(0);
});

it('names the console, the admin API and each actor type', async () => {
  const ws = await api.ctx.workspace('by console');
  const agent = request.agent(api.app);
  const form = await agent.get('/console/sign-in');
  expect((await agent.post('/console/sign-in').type('form').send({ _csrf: csrfOf(form.text), token: ws.token })).status).toBe(303);
  const csrf = csrfOf((await agent.get('/console/jobs')).text);
  const { job } = await aOneTimeExecution(api.ctx.runtime, ws.id);
  expect((await agent.post(`/console/jobs/${job.id}/run-now`).type('form').send({ _csrf: csrf })).status).toBe(303);
  const admin = await request(api.app).post(`/admin/v1/workspaces/${ws.id}/tokens`).set({ Authorization: `Bearer ${ADMIN_TOKEN}` }).send({ name: 'ci' });
  expect((await request(api.app).delete(`/admin/v1/tokens/${admin.body.id}`).set({ Authorization: `Bearer ${ADMIN_TOKEN}` })).status).toBe(204);
  const events = (await request(api.app).get('/v1/audit-events').set(ws.auth)).body.data as Event[];
  expect(events.map((e) => [e.action, e.actor.type, e.actor.name])).toEqual([
    ['token.deleted', 'admin', 'admin'],
    ['token.created', 'admin', 'admin'],
    ['job.run_now', 'console', null],
  ]);
  expect(events[2].actor.token_id).toMatch(/^tok_/);
});

it('records each job a crontab import creates, an execution parked and resumed, and no event for a change refused', async () => {
  const ws = await api.ctx.workspace('imported');
  const res = await request(api.app).post('/v1/jobs/import').set(ws.auth).send({ crontab: '*/5 * * * * https://example.com/a\n0 3 * * * https://example.com/b\n' });
  expect(res.status).toBe(201);
  const events = (await request(api.app).get('/v1/audit-events?action=job.created').set(ws.auth)).body.data as Event[];
  expect(events.map((e) => e.target_id).sort()).toEqual(res.body.created.map((j: { id: string }) => j.id).sort());
  // No executor runs here: the execution stays queued, so it parks at once and resumes.
  const { executionId } = await aOneTimeExecution(api.ctx.runtime, ws.id);
  expect((await request(api.app).post(`/v1/executions/${executionId}/park`).set(ws.auth)).status).toBe(200);
  expect((await request(api.app).post(`/v1/executions/${executionId}/park`).set(ws.auth)).status).toBe(409);
  expect((await request(api.app).post(`/v1/executions/${executionId}/resume`).set(ws.auth)).status).toBe(200);
  const runs = (await request(api.app).get(`/v1/audit-events?target_id=${executionId}`).set(ws.auth)).body.data as Event[];
  expect(runs.map((e) => e.action)).toEqual(['execution.resumed', 'execution.parked']);
  // A remove that finds nothing in the DLQ is a 404 and writes no event.
  expect((await request(api.app).delete('/v1/dlq/exe_none').set(ws.auth)).status).toBe(404);
  expect((await request(api.app).get('/v1/audit-events?action=execution.dlq_removed').set(ws.auth)).body.total).toBe(0);
});

it('never stores a secret value or a token in any event', async () => {
  const { rows } = await api.ctx.runtime.pool.query<{ event: string }>('SELECT row_to_json(a)::text AS event FROM audit_events a');
  expect(rows.length).toBeGreaterThan(10);
  const tokens = await api.ctx.runtime.pool.query<{ prefix: string | null }>('SELECT prefix FROM api_tokens WHERE prefix IS NOT NULL');
  for (const { event } of rows) {
    expect(event).not.toContain(SECRET_VALUE);
    expect(event).not.toContain(SECRET_VALUE_2);
    expect(event).not.toMatch(/csk_[A-Za-z0-9_-]{20,}/);
    expect(event).not.toContain('whsec_');
    for (const { prefix } of tokens.rows) expect(event).not.toContain(prefix);
  }
});

it('prunes events older than the retention', async () => {
  const ws = await api.ctx.workspace('old events');
  await request(api.app).post('/v1/secrets').set(ws.auth).send({ name: 'old', value: 'x' });
  await api.ctx.runtime.pool.query(`UPDATE audit_events SET created_at = now() - interval '400 days' WHERE workspace_id = $1`, [ws.id]);
  expect(await pruneAuditEvents(api.ctx.runtime, { olderThan: new Date(Date.now() - 365 * 86_400_000) })).toBe(1);
  expect((await request(api.app).get('/v1/audit-events').set(ws.auth)).body.total).toBe(0);
});
