import net from 'node:net';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createRuntime, loadConfig } from '@cronsvc/core';
import { approvalStep, aTriggerJob, aWorkflow, capturingLogger, closedPort, httpStep, waitFor, waitStep } from '@cronsvc/core/testing';
import { createApp } from '../src/app.js';
import { useWorkflowFixture } from './workflow-fixture.js';

// What anyone holding only a public URL (trigger, resume, approval, ping) can send: deep JSON,
// NUL bytes, a broken path. Each gets a clear 4xx or is stored with NUL replaced, never a 500,
// and no log line carries the token of the URL.

const f = useWorkflowFixture();

const pathOf = (url: string) => new URL(url).pathname;
const deepJson = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const executionsOf = async (jobId: string) => (await f.get(`/v1/jobs/${jobId}/executions`)).body.data as Record<string, any>[];
const triggeredRun = async (jobId: string) =>
  (await waitFor(async () => {
    const list = await executionsOf(jobId);
    return list.length === 1 ? list : undefined;
  }, { what: 'the triggered run' }))[0];

async function waitingRun(steps: Record<string, unknown>[]) {
  const job = await f.createJob(aWorkflow(steps));
  const id = await f.runNow(job.id);
  return { id, payload: (await f.until(id, 'waiting')).waiting_payload as Record<string, string> };
}

const tooDeep = { code: 'validation_failed', details: [{ path: '(body)', message: 'request body must not be nested deeper than 100 levels' }] };

describe('a body nested 100,000 levels deep', () => {
  it('is a 400 on a known trigger token and starts nothing; an unknown token is answered as always, its body unread', async () => {
    const job = await f.createJob(aTriggerJob([httpStep('call', `${f.target.url}/x`)]));
    const known = await request(f.app).post(`/v1/triggers/${job.webhook_token}`).type('application/json').send(deepJson(100_000));
    expect(known.status).toBe(400);
    expect(known.body.error).toMatchObject(tooDeep);
    const unknown = await request(f.app).post('/v1/triggers/trg_unknown').type('application/json').send(deepJson(100_000));
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ received: true });
    expect(await executionsOf(job.id)).toEqual([]);
  });

  it('is a 400 on a resume token, and the run still waits', async () => {
    const { id, payload } = await waitingRun([waitStep('callback')]);
    const res = await request(f.app).post(pathOf(payload.resume_url)).type('application/json').send(deepJson(100_000));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject(tooDeep);
    expect((await f.execution(id)).status).toBe('waiting');
    expect((await request(f.app).post('/v1/resume/rsm_unknown').type('application/json').send(deepJson(100_000))).status).toBe(404);
  });

  it('is a 400 on an approval decision within its 64 KiB, and the approval stays pending', async () => {
    const { id, payload } = await waitingRun([approvalStep('review', 'Go?')]);
    const res = await request(f.app).post(pathOf(payload.approve_url)).type('application/json').send(deepJson(30_000));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject(tooDeep);
    expect((await request(f.app).get(pathOf(payload.review_url))).body.status).toBe('pending');
    expect((await f.execution(id)).status).toBe('waiting');
  });
});

describe('NUL in what a public call stores', () => {
  it('stores a trigger with NUL in its body, keys and query, NUL replaced by U+FFFD', async () => {
    const job = await f.createJob(aTriggerJob([httpStep('call', `${f.target.url}/x`)]));
    const res = await request(f.app).post(`/v1/triggers/${job.webhook_token}?q=a%00b`).type('application/json').send('{"text":"x\\u0000y","k\\u0000ey":["\\u0000"]}');
    expect(res.status).toBe(200);
    const run = await triggeredRun(job.id);
    const input = (await f.execution(run.id)).trigger_input;
    expect(input.body).toEqual({ text: 'x\uFFFDy', 'k\uFFFDey': ['\uFFFD'] });
    expect(input.query).toEqual({ q: 'a\uFFFDb' });
  });

  it('stores a trigger, a resume and a decision whose JSON holds an unpaired surrogate, replaced by U+FFFD', async () => {
    const job = await f.createJob(aTriggerJob([httpStep('call', `${f.target.url}/x`)]));
    const res = await request(f.app).post(`/v1/triggers/${job.webhook_token}`).type('application/json').send('{"text":"x\\ud800y","k\\udc00":"\\ud83d\\udca5"}');
    expect(res.status).toBe(200);
    const run = await triggeredRun(job.id);
    expect((await f.execution(run.id)).trigger_input.body).toEqual({ text: 'x\uFFFDy', 'k\uFFFD': '💥' });

    const resumed = await waitingRun([waitStep('callback')]);
    expect((await request(f.app).post(pathOf(resumed.payload.resume_url)).type('application/json').send('"\\ud800"')).status).toBe(200);
    const approved = await waitingRun([approvalStep('review', 'Go?')]);
    expect((await request(f.app).post(pathOf(approved.payload.approve_url)).type('application/json').send('{"comment":"\\udfff"}')).status).toBe(200);
    expect((await f.until(resumed.id, 'succeeded', 'failed')).step_executions[0].input).toBe('\uFFFD');
    expect((await f.until(approved.id, 'succeeded', 'failed')).step_executions[0].input).toEqual({ comment: '\uFFFD' });
  });

  it('never lets NUL in through a header: Node refuses the request itself and nothing starts', async () => {
    const job = await f.createJob(aTriggerJob([httpStep('call', `${f.target.url}/x`)]));
    const server = f.app.listen(0, '127.0.0.1');
    try {
      await new Promise((r) => server.once('listening', r));
      const answer = await rawRequest((server.address() as AddressInfo).port, `POST /v1/triggers/${job.webhook_token} HTTP/1.1\r\nHost: x\r\nX-Bad: a\0b\r\nContent-Length: 0\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    } finally {
      await new Promise((r) => server.close(r));
    }
    expect(await executionsOf(job.id)).toEqual([]);
  });

  it('resumes with a text payload holding NUL, stored with NUL replaced', async () => {
    const { id, payload } = await waitingRun([waitStep('callback'), httpStep('after', `${f.target.url}/after`)]);
    const res = await request(f.app).post(pathOf(payload.resume_url)).type('text/plain').send('before\0after');
    expect(res.status).toBe(200);
    const done = await f.until(id, 'succeeded', 'failed');
    expect(done.step_executions[0].input).toBe('before\uFFFDafter');
  });

  it('records a decision whose comment holds NUL, stored with NUL replaced', async () => {
    const { id, payload } = await waitingRun([approvalStep('review', 'Go?')]);
    const res = await request(f.app).post(pathOf(payload.reject_url)).type('form').send('comment=no%00way');
    expect(res.status).toBe(200);
    const done = await f.until(id, 'failed');
    expect(done.step_executions[0].input).toEqual({ comment: 'no\uFFFDway' });
  });
});

describe('a public path token that is not one', () => {
  it('answers NUL in a token as an unknown token, on every public endpoint', async () => {
    const trigger = await request(f.app).post('/v1/triggers/%00').send({});
    expect([trigger.status, trigger.body]).toEqual([200, { received: true }]);
    for (const [method, path] of [
      ['post', '/v1/resume/%00x'],
      ['get', '/v1/approvals/%00'],
      ['post', '/v1/approvals/%00/approve'],
      ['get', '/v1/ping/%00'],
      ['post', '/v1/ping/%00'],
    ] as const) {
      const res = await request(f.app)[method](path);
      expect({ path, status: res.status, code: res.body.error?.code }).toEqual({ path, status: 404, code: 'not_found' });
    }
  });

  it('answers a path that is not valid percent-encoding with 400, not 500', async () => {
    for (const path of ['/v1/triggers/%E0%A4%A', '/v1/resume/%ZZ', '/v1/approvals/%C0', '/v1/ping/%E0%A4%A']) {
      const res = await request(f.app).post(path).send({});
      expect({ path, status: res.status, code: res.body.error?.code }).toEqual({ path, status: 400, code: 'validation_failed' });
    }
  });
});

describe('the error log', () => {
  it('names the route pattern, never the path holding a public token, when a request fails', async () => {
    const { logger, lines } = capturingLogger();
    const config = loadConfig({ ...f.ctx.env, DATABASE_URL: `postgresql://postgres@127.0.0.1:${await closedPort()}/nothing` });
    const runtime = createRuntime(config, logger);
    try {
      const app = createApp(runtime);
      const token = 'trg_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcd';
      const failing = [
        request(app).post(`/v1/triggers/${token}`).send({}),
        request(app).post(`/V1/Resume/${token}`).send({}),
        request(app).post(`/v1/approvals/${token}/approve`).send({}),
        request(app).get(`/v1/ping/${token.slice(4)}`),
      ];
      for (const res of await Promise.all(failing)) expect(res.status).toBe(503);
      expect(lines.length).toBeGreaterThanOrEqual(4);
      const logged = lines.join('\n');
      expect(logged).not.toContain(token.slice(4));
      for (const route of ['/v1/triggers/:token', '/v1/resume/:token', '/v1/approvals/:token/approve', '/v1/ping/:token']) expect(logged).toContain(`"route":"${route}"`);
    } finally {
      await runtime.close();
    }
  });
});

/** Sends `text` on a new connection and resolves with everything the server answered until it closed (or 5 s passed). */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.setTimeout(5_000, () => socket.destroy());
    socket.on('data', (d) => (answer += d));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}
