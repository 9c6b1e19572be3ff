import request from 'supertest';
import { pruneAuditEvents } from '@cronsvc/core';
import { ADMIN_TOKEN, aChannelBody, aDelivery, aKeyedJob, aMonitorBody, aOneTimeExecution, aRecurringJob, aSnoozeLink, aToken } from '@cronsvc/core/testing';
import { useApiApp } from './api-app.js';
import { csrfOf } from './console-fixture.js';

// The audit log (docs/API.md, "Audit log"): each change writes its event in its own transaction,
// from the actor that made it; names of fields, never values.
const api = useApiApp();
const SECRET_VALUE = 'audit-secret-value-81f3';
const SECRET_VALUE_2 = 'audit-secret-value-2-c4d9';
const HOOK_URL = 'https://hooks.example.com/audit-hook-5b7e';
const CONTEXT_VALUE = 'audit-context-value-93aa';

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

it('records what an apply creates, changes and prunes, and each job a tag pauses or resumes', async () => {
  const ws = await api.ctx.workspace('applied');
  const job = (key: string, cron: string) => aKeyedJob(key, { schedule: { cron }, tags: ['billing'] });
  const apply = (body: object) => request(api.app).post('/v1/jobs/apply').set({ ...ws.auth, 'X-Request-Id': 'req-apply' }).send(body);
  expect((await apply({ jobs: [job('a', '0 * * * *'), job('b', '0 * * * *')] })).status).toBe(200);
  const after = (await apply({ jobs: [job('a', '5 * * * *')], prune: true })).body;
  expect(after).toMatchObject({ updated: [{ key: 'a', fields: ['schedule'] }], deleted: ['b'] });
  expect((await request(api.app).post('/v1/tags/billing/pause').set(ws.auth)).body.changed).toBe(1);
  expect((await request(api.app).post('/v1/tags/billing/resume').set(ws.auth)).body.changed).toBe(1);
  const events = (await request(api.app).get('/v1/audit-events?limit=20').set(ws.auth)).body.data as Event[];
  // One apply's events share its transaction's time: their order among themselves is not kept.
  expect(events.slice(0, 2).map((e) => [e.action, e.changed_fields])).toEqual([['job.resumed', ['state']], ['job.paused', ['state']]]);
  expect(events.slice(2, 4).map((e) => [e.action, e.changed_fields]).sort()).toEqual([['job.deleted', []], ['job.updated', ['schedule']]]);
  expect(events.slice(4).map((e) => [e.action, e.changed_fields])).toEqual([
    ['job.created', expect.arrayContaining(['key', 'schedule'])], ['job.created', expect.arrayContaining(['key', 'schedule'])],
  ]);
  expect(events.filter((e) => e.action !== 'job.paused' && e.action !== 'job.resumed').every((e) => e.request_id === 'req-apply')).toBe(true);
});

it('records monitors, channels, rules, snoozes, status pages, host limits, a DLQ purge, job context, a delivery retry and badge rotations', async () => {
  const ws = await api.ctx.workspace('audited objects');
  const call = (method: 'post' | 'patch' | 'put' | 'delete', path: string, body?: object) => request(api.app)[method](path).set(ws.auth).send(body);
  const monitor = (await call('post', '/v1/monitors', aMonitorBody({ name: 'nightly backup' }))).body;
  expect((await call('patch', `/v1/monitors/${monitor.id}`, { name: 'renamed', grace_sec: 30 })).status).toBe(200);
  expect((await call('post', `/v1/monitors/${monitor.id}/pause`)).status).toBe(200);
  expect((await call('post', `/v1/monitors/${monitor.id}/resume`)).status).toBe(200);
  expect((await call('post', `/v1/monitors/${monitor.id}/badge/rotate`)).status).toBe(200);
  const channel = (await call('post', '/v1/notification-channels', aChannelBody('webhook', { url: HOOK_URL }))).body;
  expect((await call('patch', `/v1/notification-channels/${channel.id}`, { name: 'ops hook' })).status).toBe(200);
  const monitorRule = (await call('post', `/v1/monitors/${monitor.id}/notification-rules`, { channel_id: channel.id, event: 'on_down' })).body;
  expect((await call('post', `/v1/notification-rules/${monitorRule.id}/snooze`, { minutes: 30 })).status).toBe(200);
  expect((await call('post', `/v1/notification-rules/${monitorRule.id}/unsnooze`)).status).toBe(200);
  expect((await call('delete', `/v1/monitors/${monitor.id}/notification-rules/${monitorRule.id}`)).status).toBe(204);
  const job = (await call('post', '/v1/jobs', aRecurringJob({ name: 'context job' }))).body;
  const jobRule = (await call('post', `/v1/jobs/${job.id}/notification-rules`, { channel_id: channel.id, event: 'on_failure' })).body;
  expect((await call('patch', `/v1/jobs/${job.id}/context`, { cursor: CONTEXT_VALUE })).status).toBe(200);
  expect((await call('post', `/v1/jobs/${job.id}/badge/rotate`)).status).toBe(200);
  const page = (await call('post', '/v1/status-pages', { name: 'public', job_ids: [job.id] })).body;
  expect((await call('patch', `/v1/status-pages/${page.id}`, { name: 'status' })).status).toBe(200);
  expect((await call('delete', `/v1/status-pages/${page.id}`)).status).toBe(204);
  expect((await call('put', '/v1/host-limits/api.example.com', { max_concurrency: 2 })).status).toBe(201);
  expect((await call('delete', '/v1/host-limits/api.example.com')).status).toBe(204);
  const delivery = await aDelivery(api.ctx.runtime, ws.id);
  expect((await call('post', `/v1/notification-deliveries/${delivery.id}/retry`)).status).toBe(202);
  const { executionId } = await aOneTimeExecution(api.ctx.runtime, ws.id);
  await api.ctx.runtime.db.execution.update({ where: { id: executionId }, data: { deadLetteredAt: new Date() } });
  expect((await call('post', '/v1/dlq/purge', {})).body.purged).toBe(1);
  // A purge that clears nothing writes no event.
  expect((await call('post', '/v1/dlq/purge', {})).body.purged).toBe(0);
  // Whoever holds a snooze link is a public caller.
  const link = await aSnoozeLink(api.ctx.runtime, jobRule.id);
  expect((await request(api.app).post(`/v1/snooze/${link}`).set({ 'X-Request-Id': 'req-snooze-link' })).status).toBe(200);
  expect((await call('delete', `/v1/jobs/${job.id}/notification-rules/${jobRule.id}`)).status).toBe(204);
  expect((await call('delete', `/v1/notification-channels/${channel.id}`)).status).toBe(204);
  expect((await call('delete', `/v1/monitors/${monitor.id}`)).status).toBe(204);

  const events = (await request(api.app).get('/v1/audit-events?limit=100').set(ws.auth)).body.data as Event[];
  expect(events.map((e) => e.action).sort()).toEqual([
    'delivery.retried', 'dlq.purged', 'job.badge_rotated', 'job.context_updated', 'job.created', 'host_limit.deleted', 'host_limit.set',
    'monitor.badge_rotated', 'monitor.created', 'monitor.deleted', 'monitor.paused', 'monitor.resumed', 'monitor.updated',
    'notification_channel.created', 'notification_channel.deleted', 'notification_channel.updated',
    'notification_rule.created', 'notification_rule.created', 'notification_rule.deleted', 'notification_rule.deleted',
    'notification_rule.snoozed', 'notification_rule.snoozed', 'notification_rule.unsnoozed',
    'status_page.created', 'status_page.deleted', 'status_page.updated',
  ].sort());
  const one = (action: string, targetId?: string) => events.find((e) => e.action === action && (targetId === undefined || e.target_id === targetId));
  expect(one('monitor.updated')).toMatchObject({ target_type: 'monitor', target_id: monitor.id, changed_fields: ['grace_sec', 'name'] });
  expect(one('notification_channel.created')).toMatchObject({ target_id: channel.id, changed_fields: ['config', 'name', 'type'] });
  expect(one('notification_rule.created', jobRule.id)).toMatchObject({ target_type: 'notification_rule', changed_fields: ['channel_id', 'event'] });
  expect(one('job.context_updated')).toMatchObject({ target_id: job.id, changed_fields: ['cursor'] });
  expect(one('host_limit.set')).toMatchObject({ target_type: 'host_limit', target_id: 'api.example.com', changed_fields: ['max_concurrency'] });
  expect(one('delivery.retried')).toMatchObject({ target_type: 'delivery', target_id: delivery.id });
  expect(one('dlq.purged')).toMatchObject({ target_type: 'workspace', target_id: ws.id });
  expect(one('notification_rule.snoozed', jobRule.id)).toMatchObject({ actor: { type: 'public', token_id: null, name: null }, request_id: 'req-snooze-link', changed_fields: ['snoozed_until'] });
  expect(events.filter((e) => e.actor.type !== 'public').every((e) => e.actor.type === 'token')).toBe(true);
});

it('records a console change and a workspace the admin API creates', async () => {
  const created = await request(api.app).post('/admin/v1/workspaces').set({ Authorization: `Bearer ${ADMIN_TOKEN}` }).send({ name: 'made by admin' });
  expect(created.status).toBe(201);
  const agent = request.agent(api.app);
  const form = await agent.get('/console/sign-in');
  expect((await agent.post('/console/sign-in').type('form').send({ _csrf: csrfOf(form.text), token: created.body.api_token })).status).toBe(303);
  const csrf = csrfOf((await agent.get('/console/hosts')).text);
  expect((await agent.post('/console/hosts').type('form').send({ _csrf: csrf, host: 'billing.example.com', max_concurrency: '3' })).status).toBe(303);
  const events = (await request(api.app).get('/v1/audit-events').set({ Authorization: `Bearer ${created.body.api_token}` })).body.data as Event[];
  expect(events.map((e) => [e.action, e.actor.type, e.target_id])).toEqual([
    ['host_limit.set', 'console', 'billing.example.com'],
    ...[['token.created', 'admin', expect.stringMatching(/^tok_/)], ['workspace.created', 'admin', created.body.id]].sort(),
  ]);
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
    expect(event).not.toContain(HOOK_URL);
    expect(event).not.toContain(CONTEXT_VALUE);
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
