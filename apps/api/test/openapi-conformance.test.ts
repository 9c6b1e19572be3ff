import request from 'supertest';
import { fireDueJobs } from '@cronsvc/core';
import { ADMIN_TOKEN, aChannelBody, aCronJob, aDelivery, aMonitorBody, anOutageOf, aSnoozeLink, approvalStep, aRecurringJob, aTriggerJob, aWorkflow, httpStep, waitFor, waitStep } from '@cronsvc/core/testing';
import { openApiPath } from '../src/openapi/document.js';
import { routeNamer } from '../src/routes/route-table.js';
import { openApi } from './openapi-document.js';
import { useWorkflowFixture } from './workflow-fixture.js';

// Every operation of the OpenAPI document called on the running API: each answer's status must
// be one the document lists for the operation, and its body must fit the documented schema.
const f = useWorkflowFixture();
const spec = openApi();
const called = new Set<string>();
type Json = Record<string, any>;

interface Call {
  body?: unknown;
  auth?: Record<string, string> | null;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

/** Sends a request and checks its answer against the document; returns the answer. */
async function call(method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, options: Call = {}): Promise<request.Response> {
  let req = request(f.app)[method](path).set(options.auth === undefined ? f.auth : (options.auth ?? {}));
  if (options.headers) req = req.set(options.headers);
  if (options.query) req = req.query(options.query);
  const res = await (options.body === undefined ? req : req.send(options.body as object));
  const pattern = openApiPath(routeNamer(f.app)(method.toUpperCase(), path));
  const operation = (spec.document.paths[pattern] as Json | undefined)?.[method];
  expect([method, pattern, operation === undefined ? 'not in the document' : 'documented']).toEqual([method, pattern, 'documented']);
  const name = `${method.toUpperCase()} ${pattern}`;
  expect([name, res.status, Object.keys(operation.responses)]).toEqual([name, res.status, expect.arrayContaining([String(res.status)])]);
  const json = operation.responses[String(res.status)].content?.['application/json'];
  if (json && pattern !== '/v1/openapi.json') {
    expect([name, res.status, spec.problems(['paths', pattern, method, 'responses', String(res.status), 'content', 'application/json', 'schema'], res.body)]).toEqual([name, res.status, []]);
  }
  if (res.status < 300) called.add(name);
  return res;
}

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

async function finished(id: string, ...statuses: string[]): Promise<Json> {
  return waitFor(async () => {
    const res = await call('get', `/v1/executions/${id}`);
    return statuses.includes(res.body.status) ? res.body : undefined;
  }, { timeoutMs: 20_000, what: `execution ${id} to be ${statuses.join(' or ')}` });
}

it('answers every documented operation as the document says', async () => {
  const url = (p: string) => `${f.target.url}${p}`;
  f.target.handle((req, res) => {
    if (req.url === '/slow') return void setTimeout(() => res.end('slow'), 1_500);
    res.statusCode = req.url === '/fail' ? 500 : 200;
    res.end('{"ok":true}');
  });

  // Admin and reference.
  const workspace = await call('post', '/admin/v1/workspaces', { auth: admin, body: { name: 'conformance' } });
  const token = await call('post', `/admin/v1/workspaces/${workspace.body.id}/tokens`, { auth: admin });
  await call('delete', `/admin/v1/tokens/${token.body.id}`, { auth: admin });
  await call('post', '/admin/v1/workspaces', { auth: null, body: { name: 'x' } });
  await call('get', '/v1/openapi.json', { auth: null });

  // Secrets and the signing key.
  const secret = await call('post', '/v1/secrets', { body: { name: 'conformance_token', value: 'v1' } });
  await call('post', '/v1/secrets', { body: { name: 'conformance_token', value: 'v1' } });
  await call('get', '/v1/secrets');
  await call('get', `/v1/secrets/${secret.body.id}`);
  await call('patch', `/v1/secrets/${secret.body.id}`, { body: { value: 'v2' } });
  await call('get', '/v1/signing-key');
  await call('post', '/v1/signing-key/rotate');
  const made = await call('post', '/v1/tokens', { body: { name: 'conformance', scope: 'read' } });
  await call('post', '/v1/tokens', { body: { scope: 'root' } });
  await call('get', '/v1/tokens');
  await call('get', '/v1/jobs', { auth: { Authorization: `Bearer ${made.body.api_token}` } });
  await call('post', '/v1/tokens', { auth: { Authorization: `Bearer ${made.body.api_token}` }, body: {} });
  await call('delete', `/v1/tokens/${made.body.id}`);
  await call('get', '/v1/audit-events', { query: { action: 'token.created' } });
  await call('get', '/v1/audit-events', { query: { from: 'yesterday' } });

  // Host budgets.
  await call('put', '/v1/host-limits/api.example.com', { body: { max_concurrency: 5 } });
  await call('put', '/v1/host-limits/api.example.com', { body: { max_concurrency: 5, max_per_second: 2.5 } });
  await call('put', '/v1/host-limits/api.example.com:443', { body: { max_concurrency: 5 } });
  await call('get', '/v1/host-limits');
  await call('get', '/v1/host-limits/api.example.com');
  await call('delete', '/v1/host-limits/api.example.com');
  await call('get', '/v1/host-limits/api.example.com');

  // Jobs.
  const body = aCronJob({ name: 'conformance', request: { url: url('/ok'), headers: { 'X-Token': '{{secret.conformance_token}}' } } });
  const job = await call('post', '/v1/jobs', { body });
  await call('post', '/v1/jobs', { body, headers: { 'Idempotency-Key': 'conformance-1' } });
  await call('post', '/v1/jobs', { body, headers: { 'Idempotency-Key': 'conformance-1' } });
  await call('post', '/v1/jobs', { body: { ...body, kind: 'sometimes' } });
  await call('get', '/v1/jobs', { query: { state: 'active', limit: '10' } });
  await call('get', '/v1/jobs', { query: { limit: '1000' } });
  await call('get', `/v1/jobs/${job.body.id}`);
  await call('get', '/v1/jobs/job_unknown');
  await call('patch', `/v1/jobs/${job.body.id}`, { body: { retry_policy: { max_attempts: 2 } } });
  await call('post', `/v1/jobs/${job.body.id}/pause`);
  await call('post', `/v1/jobs/${job.body.id}/pause`);
  await call('post', `/v1/jobs/${job.body.id}/resume`);
  await call('post', '/v1/jobs/import', { body: { crontab: `*/5 * * * * ${url('/ok')}\n61 * * * * ${url('/ok')}\n` } });
  await call('patch', `/v1/jobs/${job.body.id}/context`, { body: { cursor: '1', gone: null } });
  await call('get', `/v1/jobs/${job.body.id}/context`);
  // Jobs as code
  const keyed = { ...body, key: 'conformance.keyed', tags: ['conformance'] };
  await call('post', '/v1/jobs/apply', { body: { jobs: [keyed], dry_run: true } });
  await call('post', '/v1/jobs/apply', { body: { jobs: [keyed] } });
  await call('post', '/v1/jobs/apply', { body: { jobs: [{ ...keyed, request: { url: 'nope' } }] } });
  await call('get', '/v1/jobs/export', { query: { tag: 'conformance' } });
  await call('get', '/v1/tags');
  await call('post', '/v1/tags/conformance/pause');
  await call('post', '/v1/tags/conformance/resume');

  // Channels and rules.
  const channel = await call('post', '/v1/notification-channels', { body: aChannelBody('webhook', { url: url('/hook') }, 'hook') });
  await call('get', '/v1/notification-channels');
  await call('get', `/v1/notification-channels/${channel.body.id}`);
  await call('patch', `/v1/notification-channels/${channel.body.id}`, { body: { name: 'hook 2' } });
  await call('post', `/v1/notification-channels/${channel.body.id}/test`);
  const rule = await call('post', `/v1/jobs/${job.body.id}/notification-rules`, { body: { channel_id: channel.body.id, event: 'on_failure' } });
  await call('get', `/v1/jobs/${job.body.id}/notification-rules`);
  await call('delete', `/v1/jobs/${job.body.id}/notification-rules/${rule.body.id}`);

  // Executions: run, replay, park and resume.
  const run = await call('post', `/v1/jobs/${job.body.id}/run-now`);
  await finished(run.body.id, 'succeeded');
  await call('get', '/v1/executions', { query: { status: 'succeeded' } });
  await call('get', '/v1/executions', { query: { status: 'sleeping' } });
  await call('get', `/v1/jobs/${job.body.id}/executions`);
  // Statistics and the job's badge, rotated.
  await call('get', `/v1/jobs/${job.body.id}/stats`, { query: { window: '7d' } });
  await call('get', `/v1/jobs/${job.body.id}/stats`, { query: { window: '1y' } });
  const rotated = await call('post', `/v1/jobs/${job.body.id}/badge/rotate`);
  await call('get', new URL(rotated.body.badge_url).pathname.replace(/\.svg$/, '.json'), { auth: null });
  await call('get', `/v1/badges/bdg_${'0'.repeat(64)}.json`, { auth: null });
  await call('get', `/v1/executions/${run.body.id}/notifications`);
  await call('post', `/v1/executions/${run.body.id}/replay`);
  await call('post', `/v1/executions/${run.body.id}/park`);
  const capped = await call('post', '/v1/jobs', { body: { ...body, name: 'capped', max_concurrent_executions: 1, request: { url: url('/slow') } } });
  const first = await call('post', `/v1/jobs/${capped.body.id}/run-now`);
  await finished(first.body.id, 'running');
  const second = await call('post', `/v1/jobs/${capped.body.id}/run-now`);
  await call('post', `/v1/executions/${second.body.id}/park`);
  await call('post', `/v1/executions/${second.body.id}/resume`);
  await finished(second.body.id, 'succeeded');

  // The fire ledger, with a window missed while down: a catch-up and a missed slot.
  const behind = await call('post', '/v1/jobs', { body: aRecurringJob({ name: 'behind', schedule: { every_n_minutes: 1 }, request: { url: url('/ok') } }) });
  await anOutageOf(f.ctx.runtime, behind.body.id, 2);
  await fireDueJobs(f.ctx.runtime, { lookaheadMs: 0 });
  await call('get', `/v1/jobs/${behind.body.id}/fires`);
  await call('get', '/v1/jobs/job_unknown/fires');
  await call('get', '/v1/fires', { query: { job_id: behind.body.id, outcome: 'missed' } });
  await call('get', '/v1/fires', { query: { outcome: 'ran' } });

  // The dead-letter queue.
  const failing = await call('post', '/v1/jobs', { body: { ...body, name: 'failing', request: { url: url('/fail') }, retry_policy: { max_attempts: 1 } } });
  const failures = [];
  for (let i = 0; i < 3; i++) failures.push((await call('post', `/v1/jobs/${failing.body.id}/run-now`)).body.id);
  for (const id of failures) await finished(id, 'failed');
  await call('get', '/v1/dlq');
  await call('get', '/v1/dlq/stats');
  await call('post', `/v1/dlq/${failures[0]}/replay`);
  await call('delete', `/v1/dlq/${failures[1]}`);
  await call('post', '/v1/dlq/replay-batch', { body: { ids: [failures[2], 'exe_unknown'] } });
  await call('post', '/v1/dlq/purge', { body: {} });

  // Deliveries.
  const delivery = await aDelivery(f.ctx.runtime, f.workspaceId, { url: url('/callback') });
  await call('get', '/v1/notification-deliveries', { query: { status: 'failed' } });
  await call('post', `/v1/notification-deliveries/${delivery.id}/retry`);

  // Monitors and their rules; pings by the monitor's URL.
  const monitor = await call('post', '/v1/monitors', { body: aMonitorBody({ name: 'backup', expected_interval_sec: 3600 }) });
  await call('get', '/v1/monitors');
  await call('get', `/v1/monitors/${monitor.body.id}`);
  await call('patch', `/v1/monitors/${monitor.body.id}`, { body: { grace_sec: 60 } });
  const pingPath = new URL(monitor.body.ping_url).pathname;
  await call('get', pingPath, { auth: null });
  await call('post', pingPath, { auth: null, body: { note: 'done' } });
  await call('get', '/v1/ping/not-a-token', { auth: null });
  await call('get', `${pingPath}/start`, { auth: null });
  await call('post', `${pingPath}/start`, { auth: null });
  await call('get', `${pingPath}/0`, { auth: null });
  await call('post', `${pingPath}/3`, { auth: null, body: 'exit 3' });
  await call('get', `${pingPath}/256`, { auth: null });
  await call('get', `${pingPath}/fail`, { auth: null });
  await call('post', `${pingPath}/fail`, { auth: null, body: 'disk full' });
  await call('get', `/v1/monitors/${monitor.body.id}/pings`, { query: { limit: '5' } });
  await call('post', `/v1/monitors/${monitor.body.id}/badge/rotate`);
  await call('post', `/v1/monitors/${monitor.body.id}/pause`);
  await call('post', `/v1/monitors/${monitor.body.id}/resume`);
  const monitorRule = await call('post', `/v1/monitors/${monitor.body.id}/notification-rules`, { body: { channel_id: channel.body.id, event: 'on_down' } });
  await call('get', `/v1/monitors/${monitor.body.id}/notification-rules`);
  await call('get', `/v1/notification-rules/${monitorRule.body.id}`);
  await call('post', `/v1/notification-rules/${monitorRule.body.id}/snooze`, { body: { minutes: 60 } });
  await call('post', `/v1/notification-rules/${monitorRule.body.id}/unsnooze`);
  await call('post', `/v1/notification-rules/${monitorRule.body.id}/snooze`, { body: { minutes: 0 } });
  await call('get', '/v1/notification-rules/rul_missing');
  const snoozeLink = await aSnoozeLink(f.ctx.runtime, monitorRule.body.id);
  await call('get', `/v1/snooze/${snoozeLink}`, { auth: null });
  await call('post', `/v1/snooze/${snoozeLink}`, { auth: null, query: { minutes: '30' } });
  await call('post', '/v1/snooze/not-a-token', { auth: null });
  await call('delete', `/v1/monitors/${monitor.body.id}/notification-rules/${monitorRule.body.id}`);
  await call('delete', `/v1/monitors/${monitor.body.id}`);

  // Step-driven jobs: a trigger, a webhook wait, an approval approved and one rejected.
  const trigger = await call('post', '/v1/jobs', { body: aTriggerJob([httpStep('call', url('/ok'))]) });
  await call('post', `/v1/triggers/${trigger.body.webhook_token}`, { auth: null, body: { hello: 'world' } });
  const waiting = await call('post', '/v1/jobs', { body: aWorkflow([waitStep('wait')], { name: 'waits' }) });
  const waitRun = await finished((await call('post', `/v1/jobs/${waiting.body.id}/run-now`)).body.id, 'waiting');
  await call('post', new URL(waitRun.waiting_payload.resume_url).pathname, { auth: null, body: { go: true } });
  await call('post', new URL(waitRun.waiting_payload.resume_url).pathname, { auth: null, body: { go: true } });
  const approving = await call('post', '/v1/jobs', { body: aWorkflow([approvalStep('review', 'Ship it?')], { name: 'approves' }) });
  for (const decision of ['approve', 'reject']) {
    const exe = await finished((await call('post', `/v1/jobs/${approving.body.id}/run-now`)).body.id, 'waiting');
    const review = new URL(exe.waiting_payload.review_url).pathname;
    await call('get', review, { auth: null });
    await call('post', `${review}/${decision}`, { auth: null, body: {} });
    await call('post', `${review}/${decision}`, { auth: null, body: {} });
  }

  // Deletes, and a secret still in use.
  await call('delete', `/v1/notification-channels/${channel.body.id}`);
  await call('delete', `/v1/jobs/${job.body.id}`);
  await call('delete', `/v1/secrets/${secret.body.id}`);

  const documented = spec.operations.map((o) => `${o.method} ${o.path}`).sort();
  expect(documented.filter((name) => !called.has(name))).toEqual([]);
});
