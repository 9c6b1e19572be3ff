import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { getSigningKey, reconcileDeliveries, type ExecutionWithAttempts } from '@cronsvc/core';
import { aOneTimeExecution, waitFor, type Receiver, type TargetServer, type TestContext, type TestWorkspace } from '@cronsvc/core/testing';
import type { createApp } from '@cronsvc/api';
import { useNotifierFixture } from './notifier-fixture.js';

let ctx: TestContext;
let target: TargetServer;
let receiver: Receiver;
let workspace: TestWorkspace;
let app: ReturnType<typeof createApp>;

const f = useNotifierFixture();
beforeAll(() => ({ ctx, target, receiver, workspace, app } = f));
beforeEach(() => receiver.handle((_req, res) => void res.end('thanks')));

const auth = () => workspace.auth;

async function runJob(targetStatus: number, extra: Record<string, unknown>) {
  target.handle((_req, res) => {
    res.statusCode = targetStatus;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ ok: targetStatus < 400, id: 'abc' }));
  });
  return aOneTimeExecution(ctx.runtime, workspace.id, {
    name: 'with callbacks',
    request: { url: target.url, response_output_template: { remote_id: '$.id', source: 'test' } },
    retry_policy: { max_attempts: 1 },
    on_success_url: `${receiver.url}/success`,
    on_failure_url: `${receiver.url}/failure`,
    ...extra,
  });
}

async function deliveriesOf(executionId: string) {
  const res = await request(app).get(`/v1/executions/${executionId}/notifications`).set(auth());
  expect(res.status).toBe(200);
  return res.body as { data: Record<string, unknown>[]; total: number };
}

describe('execution callbacks', () => {
  it('POSTs the signed execution event to on_success_url after a success, and records it as sent', async () => {
    const { job, executionId } = await runJob(200, {});
    await waitFor(() => receiver.received.length === 1, { what: 'the success callback' });
    const call = receiver.received[0];
    expect(call.method).toBe('POST');
    expect(call.url).toBe('/success');
    expect(call.headers['content-type']).toBe('application/json');
    const payload = JSON.parse(call.body);
    expect(payload).toEqual({
      event: 'execution.succeeded',
      job: { id: job.id, name: 'with callbacks' },
      execution: { id: executionId, status: 'succeeded', status_code: 200, body_preview: '{"ok":true,"id":"abc"}', error_class: null },
      output: { remote_id: 'abc', source: 'test' },
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const { signing_key } = await getSigningKey(ctx.runtime, workspace.id);
    expect(() => new Webhook(signing_key).verify(call.body, call.headers as Record<string, string>)).not.toThrow();
    expect(call.headers['x-cron-service-signature']).toBe(call.headers['webhook-signature']);

    const list = await waitFor(async () => {
      const l = await deliveriesOf(executionId);
      return l.data[0]?.status === 'sent' ? l : undefined;
    }, { what: 'the delivery to be recorded as sent' });
    expect(list.total).toBe(1);
    expect(list.data[0]).toMatchObject({
      id: expect.stringMatching(/^dlv_/), kind: 'callback', event: 'on_success', execution_id: executionId, url: `${receiver.url}/success`,
      status: 'sent', attempts: 1, last_status_code: 200, last_error: null, sent_at: expect.any(String), channel_id: null, rule_id: null,
    });
  });

  it('POSTs execution.failed to on_failure_url after a failure', async () => {
    const { executionId } = await runJob(500, {});
    await waitFor(() => receiver.received.length === 1, { what: 'the failure callback' });
    expect(receiver.received[0].url).toBe('/failure');
    expect(JSON.parse(receiver.received[0].body)).toMatchObject({
      event: 'execution.failed',
      execution: { id: executionId, status: 'failed', status_code: 500, error_class: 'HTTP_5XX' },
    });
  });

  it('retries a callback the receiver fails with 503 and honours Retry-After on 429', async () => {
    let calls = 0;
    receiver.handle((_req, res) => {
      calls += 1;
      if (calls === 1) res.statusCode = 503;
      else if (calls === 2) {
        res.statusCode = 429;
        res.setHeader('Retry-After', '1');
      }
      res.end();
    });
    const { executionId } = await runJob(200, {});
    const list = await waitFor(async () => {
      const l = await deliveriesOf(executionId);
      return l.data[0]?.status === 'sent' ? l : undefined;
    }, { what: 'the callback to get through', timeoutMs: 20_000 });
    expect(list.data[0]).toMatchObject({ attempts: 3, last_status_code: 200 });
    const gaps = [1, 2].map((i) => receiver.received[i].at - receiver.received[i - 1].at);
    expect(gaps[0]).toBeGreaterThanOrEqual(800 - 50);
    expect(gaps[1]).toBeGreaterThanOrEqual(1000 - 50);
    // Every attempt is one message, identified like the execution's own requests.
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([executionId, executionId, executionId]);
    expect(receiver.received.map((r) => r.headers['x-cron-service-execution-id'])).toEqual([executionId, executionId, executionId]);
  });

  it('fails a callback at once on a permanent status, and a retry starts a new round', async () => {
    receiver.handle((_req, res) => {
      res.statusCode = 404;
      res.end();
    });
    const { executionId } = await runJob(200, {});
    const failed = await waitFor(async () => {
      const l = await deliveriesOf(executionId);
      return l.data[0]?.status === 'failed' ? l.data[0] : undefined;
    }, { what: 'the callback to fail' });
    expect(failed).toMatchObject({ attempts: 1, last_status_code: 404, last_error: 'receiver answered 404' });
    expect((await request(app).get('/v1/notification-deliveries?status=failed').set(auth())).body.data.map((d: { id: string }) => d.id)).toContain(failed.id);

    receiver.handle((_req, res) => void res.end('ok now'));
    const retried = await request(app).post(`/v1/notification-deliveries/${failed.id}/retry`).set(auth());
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id: failed.id, status: 'pending', attempts: 0 });
    await waitFor(async () => (await deliveriesOf(executionId)).data[0]?.status === 'sent', { what: 'the retried callback' });
    const again = await request(app).post(`/v1/notification-deliveries/${failed.id}/retry`).set(auth());
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_state');
  });

  it('sends no callback when the outcome has no URL', async () => {
    const { executionId } = await runJob(200, { on_success_url: null });
    const exe = await waitFor(async () => {
      const e = await ctx.runtime.db.execution.findUnique({ where: { id: executionId } });
      return e?.status === 'succeeded' ? (e as ExecutionWithAttempts) : undefined;
    }, { what: 'the execution' });
    expect(exe.finalOutput).toEqual({ remote_id: 'abc', source: 'test' });
    expect((await deliveriesOf(executionId)).total).toBe(0);
  });

  it('delivers a callback that was recorded while Redis lost it, through the reconciler', async () => {
    const { executionId } = await runJob(200, {});
    await waitFor(() => receiver.received.length === 1, { what: 'the first callback' });
    const [delivery] = (await deliveriesOf(executionId)).data;
    await ctx.runtime.db.delivery.update({ where: { id: delivery.id as string }, data: { status: 'pending', nextAttemptAt: new Date(Date.now() - 60_000) } });
    expect(await reconcileDeliveries(ctx.runtime, { dueBefore: new Date() })).toBeGreaterThanOrEqual(1);
    await waitFor(() => receiver.received.length === 2, { what: 'the reconciled callback' });
  });
});
