import request from 'supertest';
import { aTriggerJob, aWorkflow, approvalStep, httpStep, startTargetServer, waitStep, type TargetServer } from '@cronsvc/core/testing';
import { useWorkflowFixture } from './workflow-fixture.js';

// Whoever holds a trigger URL controls {{trigger.*}}, and whoever answers an earlier step
// controls {{context.*}}: neither may move a step's request, with its {{secret.*}} headers, to
// another host.

const f = useWorkflowFixture();
let evil: TargetServer;
beforeAll(async () => {
  evil = await startTargetServer();
});
afterAll(() => evil.close());

const trigger = (token: string, body: unknown) => request(f.app).post(`/v1/triggers/${token}`).send(body as object);

it('refuses, at save, a step URL whose host a trigger or context value could change', async () => {
  const host = f.target.url.replace('http://', '');
  for (const url of ['https://api.example.com{{trigger.body.p}}', `http://${host}{{trigger.body.p}}`, `http://{{context.host}}/x`, `{{trigger.body.url}}`, `http://${host}:{{context.port}}/`]) {
    const res = await f.post('/v1/jobs', aTriggerJob([httpStep('call', url)]));
    expect({ url, status: res.status, code: res.body.error?.code }).toEqual({ url, status: 400, code: 'validation_failed' });
    expect(res.body.error.details).toEqual([expect.objectContaining({ path: 'steps[0].url' })]);
  }
  // The form the URL check lets through is refused by name.
  const res = await f.post('/v1/jobs', aTriggerJob([httpStep('call', 'https://api.example.com{{trigger.body.p}}')]));
  expect(res.body.error.details[0].message).toMatch(/\{\{trigger\.body\.p\}\} cannot come before the path/);
  // After the host, they are fine.
  expect((await f.post('/v1/jobs', aTriggerJob([httpStep('call', `http://${host}/{{trigger.body.p}}`)]))).status).toBe(201);
});

it('sends a stored step whose host came before the check nowhere else, even with a value like "@evil/"', async () => {
  const host = f.target.url.replace('http://', '');
  const job = await f.createJob(aTriggerJob([httpStep('call', `http://${host}/placeholder`, { headers: { 'X-Key': 'not for evil' } })]));
  // As a job saved before the check would hold it.
  const stored = await f.ctx.runtime.db.job.findUniqueOrThrow({ where: { id: job.id } });
  const steps = stored.steps as Record<string, unknown>[];
  await f.ctx.runtime.db.job.update({ where: { id: job.id }, data: { steps: [{ ...steps[0], url: `http://${host}{{trigger.body.p}}` }] } });

  expect((await trigger(job.webhook_token, { p: `@${evil.url.replace('http://', '')}/steal` })).status).toBe(200);
  const [exe] = (await f.get(`/v1/jobs/${job.id}/executions`)).body.data;
  const done = await f.until(exe.id, 'failed', 'succeeded');
  expect(done).toMatchObject({ status: 'failed', error_class: 'BLOCKED_TARGET' });
  expect(done.error_message).toMatch(/host or port would come from a trigger or context value/);
  expect(evil.received).toEqual([]);
  expect(f.target.received).toEqual([]);
});

it('percent-encodes trigger and context values in a URL path, so they cannot end the path or add a query', async () => {
  f.target.handle((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ next: 'b c/?#@x' }));
  });
  const job = await f.createJob(
    aTriggerJob([
      httpStep('first', `${f.target.url}/items/{{trigger.body.p}}?q={{trigger.body.q}}`, { extract: { next: '$.next' } }),
      httpStep('second', `${f.target.url}/next/{{context.next}}`),
    ]),
  );
  expect((await trigger(job.webhook_token, { p: 'a/b?admin=1#frag', q: 'x&role=admin' })).status).toBe(200);
  const [exe] = (await f.get(`/v1/jobs/${job.id}/executions`)).body.data;
  expect((await f.until(exe.id, 'failed', 'succeeded')).status).toBe('succeeded');
  expect(f.target.received.map((r) => r.url)).toEqual(['/items/a/b%3Fadmin%3D1%23frag?q=x%26role%3Dadmin', '/next/b%20c/%3F%23%40x']);
});

describe('a wait whose time is up before the scheduler expires it', () => {
  // No scheduler runs in this file, so nothing sweeps the wait: its time runs out in the row only.
  async function waitingAt(step: Record<string, unknown>) {
    const job = await f.createJob(aWorkflow([step, httpStep('after', `${f.target.url}/after`)]));
    const exe = await f.until(await f.runNow(job.id), 'waiting');
    await f.ctx.runtime.pool.query("UPDATE step_executions SET expires_at = now() - interval '1 second' WHERE execution_id = $1", [exe.id]);
    return exe;
  }

  it('no longer takes a resume: its token answers 404 and the run stays waiting', async () => {
    const exe = await waitingAt(waitStep('hook', { timeout_seconds: 60 }));
    const token = exe.waiting_payload.resume_url.split('/').pop();
    expect((await request(f.app).post(`/v1/resume/${token}`).send({ late: true })).status).toBe(404);
    expect((await f.execution(exe.id)).status).toBe('waiting');
    expect(f.target.received).toEqual([]);
  });

  it('no longer takes a decision: approve answers 409 already_decided and the approval reads as expired', async () => {
    const exe = await waitingAt(approvalStep('ok', 'Ship it?', { timeout_seconds: 60 }));
    const token = exe.waiting_payload.approve_url.split('/').slice(-2)[0];
    const approve = await request(f.app).post(`/v1/approvals/${token}/approve`).send({});
    expect(approve.status).toBe(409);
    expect(approve.body.error).toMatchObject({ code: 'already_decided', message: expect.stringMatching(/expired/) });
    expect((await request(f.app).get(`/v1/approvals/${token}`)).body.status).toBe('expired');
    expect((await f.execution(exe.id)).status).toBe('waiting');
  });
});
