import { aWorkflow, httpStep, waitFor } from '@cronsvc/core/testing';
import { useWorkflowFixture } from './workflow-fixture.js';

const f = useWorkflowFixture({ notifier: true });

const json = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
};

it('runs three http steps in order, passing extracted values through the run context and into the job context', async () => {
  f.target.handle((req, res) => {
    if (req.url === '/users') return json(res, 200, { user: { id: 42, name: 'Ada' } });
    if (req.url === '/orders') return json(res, 201, { order: 'o-7', cursor: 'c-99' });
    return json(res, 200, { ok: true });
  });
  const job = await f.createJob(
    aWorkflow([
      httpStep('fetch-user', `${f.target.url}/users`, { extract: { user_id: '$.user.id', user: '$.user' } }),
      httpStep('create-order', `${f.target.url}/orders`, {
        method: 'POST',
        headers: { 'X-User': '{{context.user_id}}' },
        body_template: { user: '{{context.user.name}}', id: '{{context.user_id}}', run: '{{execution_id}}' },
        extract: { order: '$.order' },
        extract_to_context: { cursor: '$.cursor' },
      }),
      httpStep('notify', `${f.target.url}/notify?order={{context.order}}&user={{context.user_id}}`),
    ]),
  );
  const id = await f.runNow(job.id);
  const done = await f.until(id, 'succeeded', 'failed');

  expect(done.status).toBe('succeeded');
  expect(f.target.received.map((r) => r.url)).toEqual(['/users', '/orders', '/notify?order=o-7&user=42']);
  const order = f.target.received[1];
  expect(order.headers['x-user']).toBe('42');
  expect(order.headers['x-cron-service-execution-id']).toBe(id);
  expect(order.headers['webhook-signature']).toMatch(/^v1,/);
  expect(JSON.parse(order.body)).toEqual({ user: 'Ada', id: '42', run: id });

  expect(done.step_executions.map((s: any) => [s.step_index, s.step_id, s.type, s.status])).toEqual([
    [0, 'fetch-user', 'http', 'succeeded'],
    [1, 'create-order', 'http', 'succeeded'],
    [2, 'notify', 'http', 'succeeded'],
  ]);
  expect(done.step_executions[0].extracted).toEqual({ user_id: 42, user: { id: 42, name: 'Ada' } });
  expect(done.step_executions[1]).toMatchObject({ extracted: { order: 'o-7', cursor: 'c-99' }, output: { status_code: 201, body: { order: 'o-7', cursor: 'c-99' } } });
  expect(done.step_executions[1].attempts).toEqual([expect.objectContaining({ number: 1, status: 'SUCCESS', statusCode: 201, errorClass: null })]);
  // Each attempt records the request it sent, rendered from the run's context at that moment.
  expect(done.step_executions[1].attempts[0].request).toEqual({
    method: 'POST',
    url: `${f.target.url}/orders`,
    headers: expect.objectContaining({ 'X-User': '42', 'Content-Type': 'application/json', 'X-Cron-Service-Execution-Id': id, 'webhook-signature': order.headers['webhook-signature'] }),
    body: order.body,
    bodyTruncated: false,
  });
  expect(done.step_executions[2].attempts[0].request).toMatchObject({ method: 'GET', url: `${f.target.url}/notify?order=o-7&user=42`, body: null });
  // Each step attempt has its per-phase timings; the later steps reuse the first one's connection.
  expect(done.step_executions[0].attempts[0].timings).toMatchObject({ dns_ms: null, tls_ms: null, ttfb_ms: expect.any(Number), total_ms: expect.any(Number) });
  expect(done.step_executions[2].attempts[0].timings).toMatchObject({ ttfb_ms: expect.any(Number), total_ms: done.step_executions[2].attempts[0].latencyMs });
  expect(done.final_output).toEqual({ user_id: 42, user: { id: 42, name: 'Ada' }, order: 'o-7', cursor: 'c-99' });
  expect(done.final_response).toEqual({ statusCode: 200, bodyPreview: '{"ok":true}' });
  expect((await f.get(`/v1/jobs/${job.id}/context`)).body).toEqual({ cursor: 'c-99' });
});

it('starts each run with the job context store in its context', async () => {
  const job = await f.createJob(aWorkflow([httpStep('page', `${f.target.url}/page?after={{context.cursor}}`)]));
  expect((await f.patch(`/v1/jobs/${job.id}/context`, { cursor: 'from-store' })).status).toBe(200);
  await f.until(await f.runNow(job.id), 'succeeded');
  expect(f.target.received.map((r) => r.url)).toEqual(['/page?after=from-store']);
});

it('retries an http step by the job retry policy, records every attempt on the step, and fails the run on the last', async () => {
  let calls = 0;
  f.target.handle((_req, res) => {
    calls += 1;
    res.statusCode = 503;
    res.end(`busy ${calls}`);
  });
  const job = await f.createJob(aWorkflow([httpStep('flaky', `${f.target.url}/flaky`), httpStep('never', `${f.target.url}/never`)], { retry_policy: { max_attempts: 2 } }));
  const done = await f.until(await f.runNow(job.id), 'succeeded', 'failed');
  expect(done).toMatchObject({ status: 'failed', error_class: 'HTTP_5XX', final_response: { statusCode: 503, bodyPreview: 'busy 2' } });
  expect(done.error_message).toContain('step "flaky"');
  expect(done.dead_lettered_at).not.toBeNull();
  expect(done.step_executions).toHaveLength(1);
  expect(done.step_executions[0]).toMatchObject({ status: 'failed', error_class: 'HTTP_5XX', attempt_count: 2 });
  expect(done.step_executions[0].attempts.map((a: any) => [a.number, a.status, a.statusCode, a.errorClass])).toEqual([
    [1, 'HTTP_ERROR', 503, 'HTTP_5XX'],
    [2, 'HTTP_ERROR', 503, 'HTTP_5XX'],
  ]);
  expect(f.target.received.map((r) => r.url)).toEqual(['/flaky', '/flaky']);
});

it('sends a callback when a step-driven run ends', async () => {
  const job = await f.createJob(aWorkflow([httpStep('only', `${f.target.url}/only`)], { on_success_url: `${f.target.url}/callback` }));
  const id = await f.runNow(job.id);
  await f.until(id, 'succeeded');
  const callback = await waitFor(() => f.target.received.find((r) => r.url === '/callback'), { what: 'the callback' });
  expect(JSON.parse(callback.body)).toMatchObject({ event: 'execution.succeeded', job: { id: job.id }, execution: { id, status: 'succeeded', status_code: 200, body_preview: 'ok' } });
});

it('masks a secret a step sends, in the request it records, and where the target echoes it: the preview and everything extracted', async () => {
  expect((await f.post('/v1/secrets', { name: 'STEP_KEY', value: 'sk_step_value_123' })).status).toBe(201);
  f.target.handle((req, res) => json(res, 200, { echoed: req.headers.authorization }));
  const job = await f.createJob(aWorkflow([httpStep('auth', `${f.target.url}/auth`, { headers: { Authorization: 'Bearer {{secret.STEP_KEY}}' }, extract: { seen: '$.echoed' } })]));
  const done = await f.until(await f.runNow(job.id), 'succeeded');
  expect(f.target.received[0].headers.authorization).toBe('Bearer sk_step_value_123');
  expect(JSON.stringify(done)).not.toContain('sk_step_value_123');
  expect(done.step_executions[0].extracted).toEqual({ seen: 'Bearer [secret]' });
  expect(done.step_executions[0].attempts[0].request.headers.Authorization).toBe('Bearer [secret]');
});
