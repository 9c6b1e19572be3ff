import request from 'supertest';
import { aTriggerJob, holdAnswers, httpStep, waitFor } from '@cronsvc/core/testing';
import { useWorkflowFixture } from './workflow-fixture.js';

const f = useWorkflowFixture();

const trigger = (token: string, query = '') => request(f.app).post(`/v1/triggers/${token}${query}`);
const executionsOf = async (jobId: string) => (await f.get(`/v1/jobs/${jobId}/executions`)).body.data as Record<string, any>[];

it('creates a webhook_trigger job with a generated token and its public URL, never showing the secret', async () => {
  const job = await f.createJob(aTriggerJob([httpStep('call', `${f.target.url}/x`)], { webhook_secret: 's3cret-value' }));
  expect(job).toMatchObject({ kind: 'webhook_trigger', next_run_at: null, max_concurrent_executions: 1, max_workflow_duration_seconds: 1800, webhook_secret_configured: true });
  expect(job.webhook_token).toMatch(/^trg_[A-Za-z0-9_-]{43}$/);
  expect(job.trigger_url).toBe(`${f.ctx.config.publicBaseUrl}/v1/triggers/${job.webhook_token}`);
  expect(job).not.toHaveProperty('schedule');
  expect(JSON.stringify(job)).not.toContain('s3cret-value');
  const stored = await f.ctx.runtime.db.job.findUniqueOrThrow({ where: { id: job.id } });
  expect(JSON.stringify(stored)).not.toContain('s3cret-value');
  expect(JSON.stringify(stored)).not.toContain(job.webhook_token);

  // A PATCH keeps the token; a null secret removes the secret.
  const patched = await f.patch(`/v1/jobs/${job.id}`, { webhook_secret: null, name: 'renamed' });
  expect(patched.body).toMatchObject({ webhook_token: job.webhook_token, webhook_secret_configured: false, name: 'renamed' });
});

it('starts a run from a trigger with its secret, renders trigger values into the step, and stores the input redacted', async () => {
  const job = await f.createJob(
    aTriggerJob(
      [
        httpStep('forward', `${f.target.url}/forward?page={{trigger.query.page}}`, {
          method: 'POST',
          headers: { 'X-Event': '{{trigger.headers.X-GitHub-Event}}', 'X-From': '{{trigger.source_ip}}' },
          body_template: { repo: '{{trigger.body.repository.name}}', first: '{{trigger.body.commits.0.id}}', all: '{{trigger.body.commits}}' },
        }),
      ],
      { webhook_secret: 'shared-secret' },
    ),
  );
  const body = { repository: { name: 'cron' }, commits: [{ id: 'c1' }, { id: 'c2' }] };
  const res = await trigger(job.webhook_token, '?page=2')
    .set('X-Webhook-Secret', 'shared-secret')
    .set('X-GitHub-Event', 'push')
    .set('Authorization', 'Bearer sender-token')
    .set('Cookie', 'session=abc')
    .send(body);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ received: true });

  const [run] = await waitFor(async () => {
    const list = await executionsOf(job.id);
    return list.length === 1 && list[0].status === 'succeeded' ? list : undefined;
  }, { what: 'the triggered run' });
  expect(run.source).toBe('webhook');
  const input = (await f.execution(run.id)).trigger_input;
  expect(input).toMatchObject({ body, query: { page: '2' }, source_ip: '127.0.0.1' });
  expect(input.headers).toMatchObject({ 'x-github-event': 'push', authorization: '[redacted]', cookie: '[redacted]', 'content-type': 'application/json' });
  expect(input.headers).not.toHaveProperty('x-webhook-secret');
  expect(new Date(input.received_at).toISOString()).toBe(input.received_at);

  const sent = f.target.received[0];
  expect(sent.url).toBe('/forward?page=2');
  expect(sent.headers['x-event']).toBe('push');
  expect(sent.headers['x-from']).toBe('127.0.0.1');
  expect(JSON.parse(sent.body)).toEqual({ repo: 'cron', first: 'c1', all: JSON.stringify(body.commits) });
});

it('answers 401 to a wrong or missing X-Webhook-Secret and starts nothing', async () => {
  const job = await f.createJob(aTriggerJob([httpStep('call', `${f.target.url}/x`)], { webhook_secret: 'right' }));
  for (const secret of ['wrong', 'righ', 'right2', 'RIGHT', undefined]) {
    const req = trigger(job.webhook_token);
    const res = await (secret === undefined ? req : req.set('X-Webhook-Secret', secret)).send({});
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  }
  expect(await executionsOf(job.id)).toHaveLength(0);
});

it('answers an unknown token exactly as a known one, and starts nothing for a paused job', async () => {
  const unknown = await trigger('trg_doesnotexist').send({ a: 1 });
  expect(unknown.status).toBe(200);
  expect(unknown.body).toEqual({ received: true });

  const job = await f.createJob(aTriggerJob([httpStep('call', `${f.target.url}/x`)]));
  expect((await f.post(`/v1/jobs/${job.id}/pause`)).status).toBe(200);
  const paused = await trigger(job.webhook_token).send({ a: 1 });
  expect(paused.status).toBe(200);
  expect(paused.body).toEqual({ received: true });
  expect(await executionsOf(job.id)).toHaveLength(0);
});

it('reads form posts and text bodies, refuses broken JSON, and refuses bodies over 1 MiB with 413', async () => {
  const job = await f.createJob(aTriggerJob([httpStep('call', `${f.target.url}/x`)], { max_concurrent_executions: 0 }));
  expect((await trigger(job.webhook_token).type('form').send('a=1&a=2&b=x')).status).toBe(200);
  expect((await trigger(job.webhook_token).type('text/plain').send('plain words')).status).toBe(200);
  const broken = await trigger(job.webhook_token).type('application/json').send('{"a":');
  expect(broken.status).toBe(400);
  expect(broken.body.error.code).toBe('invalid_json');
  const big = await trigger(job.webhook_token).type('application/json').send(JSON.stringify({ big: 'x'.repeat(1024 * 1024) }));
  expect(big.status).toBe(413);
  expect(big.body.error).toMatchObject({ code: 'payload_too_large', message: 'request body is larger than 1 MiB' });
  const runs = await waitFor(async () => {
    const list = await executionsOf(job.id);
    return list.length === 2 ? list : undefined;
  });
  const bodies = await Promise.all(runs.map(async (r) => (await f.execution(r.id)).trigger_input.body));
  expect(bodies).toEqual(expect.arrayContaining([{ a: ['1', '2'], b: 'x' }, 'plain words']));
});

it('queues a trigger that arrives while the job is at max_concurrent_executions until the running one ends', async () => {
  const release = holdAnswers(f.target);
  const job = await f.createJob(aTriggerJob([httpStep('call', `${f.target.url}/x`)]));
  expect((await trigger(job.webhook_token).send({ n: 1 })).status).toBe(200);
  await waitFor(() => f.target.received.length === 1, { what: 'the first run to call' });
  expect((await trigger(job.webhook_token).send({ n: 2 })).status).toBe(200);
  const [second] = await waitFor(async () => {
    const list = (await executionsOf(job.id)).filter((e) => e.status === 'queued');
    return list.length === 1 ? list : undefined;
  }, { what: 'the second run to be queued' });
  expect(f.target.received).toHaveLength(1);
  release();
  await f.until(second.id, 'succeeded');
  expect(f.target.received.map((r) => r.url)).toEqual(['/x', '/x']);
});

it('replays a triggered run from step 0 with the same trigger input', async () => {
  const job = await f.createJob(aTriggerJob([httpStep('first', `${f.target.url}/first?v={{trigger.body.v}}`), httpStep('second', `${f.target.url}/second`)]));
  expect((await trigger(job.webhook_token).send({ v: 'seven' })).status).toBe(200);
  const [original] = await waitFor(async () => {
    const list = await executionsOf(job.id);
    return list.length === 1 && list[0].status === 'succeeded' ? list : undefined;
  });
  const replay = await f.post(`/v1/executions/${original.id}/replay`);
  expect(replay.status).toBe(202);
  expect(replay.body).toMatchObject({ source: 'replay', replay_of_id: original.id });
  const done = await f.until(replay.body.id, 'succeeded');
  expect(done.trigger_input).toEqual((await f.execution(original.id)).trigger_input);
  expect(done.step_executions.map((s: any) => s.step_id)).toEqual(['first', 'second']);
  expect(f.target.received.map((r) => r.url)).toEqual(['/first?v=seven', '/second', '/first?v=seven', '/second']);
});

it('answers 405 with Allow to other methods and 404 to other paths under the public prefixes, without asking for a token', async () => {
  const trigger = await request(f.app).get('/v1/triggers/trg_x');
  expect([trigger.status, trigger.headers.allow]).toEqual([405, 'POST']);
  const resume = await request(f.app).get('/v1/resume/rsm_x');
  expect([resume.status, resume.headers.allow]).toEqual([405, 'POST']);
  const approval = await request(f.app).delete('/v1/approvals/apr_x');
  expect([approval.status, approval.headers.allow]).toEqual([405, 'GET']);
  expect((await request(f.app).get('/v1/triggers/trg_x/more')).status).toBe(404);
  expect((await request(f.app).post('/v1/resume')).status).toBe(404);
});
