import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { getExecution, runNow } from '@cronsvc/core';
import { aJob, answerInTurn, aOneTimeExecution, finishedExecution, holdAnswers, waitFor, type TargetServer, type TestContext } from '@cronsvc/core/testing';
import { useExecutorFixture } from './executor-fixture.js';

let ctx: TestContext;
let target: TargetServer;
let workspaceId: string;

const fixture = useExecutorFixture();
beforeAll(() => ({ ctx, target, workspaceId } = fixture));

const finished = (executionId: string, timeoutMs?: number) => finishedExecution(ctx.runtime, workspaceId, executionId, { timeoutMs });

describe('making the request', () => {
  it('sends method, headers, JSON body and X-Cron-Service-Execution-Id, and records the attempt', async () => {
    target.handle((_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('X-Request-Id', 'r-1');
      res.setHeader('Set-Cookie', 'not=kept');
      res.statusCode = 201;
      res.end('{"created":true}');
    });
    const { job, executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: `${target.url}/hook?x=1`, method: 'POST', headers: { 'X-Custom': 'yes' }, body: { hello: 'world' } } });
    const exe = await finished(executionId);
    expect(target.received).toHaveLength(1);
    const got = target.received[0];
    expect(got).toMatchObject({ method: 'POST', url: '/hook?x=1', body: '{"hello":"world"}' });
    expect(got.headers['x-custom']).toBe('yes');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-cron-service-execution-id']).toBe(executionId);
    expect(exe).toMatchObject({ status: 'succeeded', attemptCount: 1, errorClass: null, finalResponse: { statusCode: 201, bodyPreview: '{"created":true}' } });
    expect(exe.startedAt).not.toBeNull();
    expect(exe.finishedAt!.getTime()).toBeGreaterThanOrEqual(exe.startedAt!.getTime());
    expect(exe.durationMs).toBe(exe.finishedAt!.getTime() - exe.startedAt!.getTime());
    expect(exe.attempts).toHaveLength(1);
    expect(exe.attempts[0]).toMatchObject({ number: 1, status: 'SUCCESS', statusCode: 201, bodyPreview: '{"created":true}', errorClass: null });
    expect(exe.attempts[0].latencyMs).toBeGreaterThanOrEqual(0);
    // Per-phase timings stored with the attempt: an address host has no lookup, http no TLS.
    expect(exe.attempts[0].timings).toEqual({ dns_ms: null, connect_ms: expect.any(Number), tls_ms: null, ttfb_ms: expect.any(Number), total_ms: exe.attempts[0].latencyMs });
    expect(exe.attempts[0].responseHeaders).toMatchObject({ 'content-type': 'application/json', 'x-request-id': 'r-1' });
    expect(exe.attempts[0].responseHeaders).not.toHaveProperty('set-cookie');
    await waitFor(async () => (await ctx.runtime.db.job.findUnique({ where: { id: job.id } }))?.state === 'completed', { what: 'one_time job to complete' });
  });

  it('sends a string body as text/plain unless the job sets a Content-Type, and GET with no body', async () => {
    const a = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: target.url, method: 'PUT', body: 'plain words' } });
    await finished(a.executionId);
    const b = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: target.url, method: 'PATCH', headers: { 'content-type': 'application/xml' }, body: '<a/>' } });
    await finished(b.executionId);
    const c = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: target.url } });
    await finished(c.executionId);
    expect(target.received.map((r) => [r.method, r.headers['content-type'], r.body])).toEqual([
      ['PUT', 'text/plain; charset=utf-8', 'plain words'],
      ['PATCH', 'application/xml', '<a/>'],
      ['GET', undefined, ''],
    ]);
  });

  it('does not follow redirects: a 302 is just a status', async () => {
    target.handle((_req, res) => {
      res.writeHead(302, { Location: '/elsewhere' });
      res.end();
    });
    const { executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: target.url } });
    const exe = await finished(executionId);
    expect(target.received.map((r) => r.url)).toEqual(['/']);
    expect(exe).toMatchObject({ status: 'failed', attemptCount: 1 });
    expect(exe.attempts[0]).toMatchObject({ status: 'HTTP_ERROR', statusCode: 302, errorClass: 'HTTP_3XX' });
    expect(exe.attempts[0].responseHeaders).toMatchObject({ location: '/elsewhere' });
  });
});

describe('retry policy', () => {
  it('retries a status in retry_on_statuses and succeeds, waiting the backoff between attempts', async () => {
    answerInTurn(target, [503, 503, 200], (call) => `call ${call}`);
    const { executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: target.url } });
    const exe = await finished(executionId);
    expect(exe.status).toBe('succeeded');
    expect(exe.attempts.map((a) => [a.number, a.status, a.statusCode, a.errorClass])).toEqual([
      [1, 'HTTP_ERROR', 503, 'HTTP_5XX'],
      [2, 'HTTP_ERROR', 503, 'HTTP_5XX'],
      [3, 'SUCCESS', 200, null],
    ]);
    const gaps = [1, 2].map((i) => target.received[i].at - target.received[i - 1].at);
    expect(gaps[0]).toBeGreaterThanOrEqual(250 * 2 * 0.8 - 20);
    expect(gaps[1]).toBeGreaterThanOrEqual(250 * 4 * 0.8 - 20);
    expect(exe.finalResponse).toEqual({ statusCode: 200, bodyPreview: 'call 3' });
    expect(exe.deadLetteredAt).toBeNull();
  });

  it('fails after max_attempts and dead-letters the execution', async () => {
    answerInTurn(target, [500], 'boom');
    const { executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: target.url }, retry_policy: { max_attempts: 2 } });
    const exe = await finished(executionId);
    expect(exe).toMatchObject({ status: 'failed', attemptCount: 2, errorClass: 'HTTP_5XX', finalResponse: { statusCode: 500, bodyPreview: 'boom' } });
    expect(exe.attempts).toHaveLength(2);
    expect(exe.deadLetteredAt).not.toBeNull();
    expect(target.received).toHaveLength(2);
  });

  it('fails at once on a status that is neither success nor retryable', async () => {
    answerInTurn(target, [404], 'nope');
    const { executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: target.url }, retry_policy: { max_attempts: 5 } });
    const exe = await finished(executionId);
    expect(exe).toMatchObject({ status: 'failed', attemptCount: 1, errorClass: 'HTTP_4XX' });
    expect(target.received).toHaveLength(1);
  });

  it('honours custom success_statuses and retry_on_statuses', async () => {
    answerInTurn(target, [409, 418]);
    const { executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: target.url, success_statuses: [418] }, retry_policy: { max_attempts: 3, retry_on_statuses: [409] } });
    const exe = await finished(executionId);
    expect(exe.status).toBe('succeeded');
    expect(exe.attempts.map((a) => a.statusCode)).toEqual([409, 418]);
  });

  it('makes exactly one attempt when max_attempts is 1', async () => {
    target.handle((_req, res) => {
      res.statusCode = 503;
      res.end();
    });
    const { executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: target.url }, retry_policy: { max_attempts: 1 } });
    expect((await finished(executionId)).attempts).toHaveLength(1);
  });
});

describe('faulty targets', () => {
  it('times out a target that never answers, retries, and records TIMEOUT', async () => {
    target.handle(() => undefined);
    const { executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: target.url, timeout_seconds: 1 }, retry_policy: { max_attempts: 2 } });
    const exe = await finished(executionId);
    expect(exe).toMatchObject({ status: 'failed', attemptCount: 2, errorClass: 'TIMEOUT', finalResponse: null });
    for (const a of exe.attempts) {
      expect(a).toMatchObject({ status: 'TIMEOUT', errorClass: 'TIMEOUT', statusCode: null });
      expect(a.latencyMs).toBeGreaterThanOrEqual(990);
      expect(a.latencyMs).toBeLessThan(3000);
    }
  });

  it('bounds a body that trickles in forever by the timeout', async () => {
    target.handle((_req, res) => {
      res.writeHead(200);
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write('.')), 100);
    });
    const { executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: target.url, timeout_seconds: 1 }, retry_policy: { max_attempts: 1 } });
    const exe = await finished(executionId);
    expect(exe.attempts[0]).toMatchObject({ status: 'TIMEOUT', errorClass: 'TIMEOUT' });
  });

  it('retries a refused connection as CONNECTION_ERROR', async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const { executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: `http://127.0.0.1:${port}/` }, retry_policy: { max_attempts: 2 } });
    const exe = await finished(executionId);
    expect(exe).toMatchObject({ status: 'failed', attemptCount: 2, errorClass: 'CONNECTION_ERROR' });
    expect(exe.attempts.map((a) => a.status)).toEqual(['CONNECTION_ERROR', 'CONNECTION_ERROR']);
  });

  it('records a reset connection and a garbage answer as CONNECTION_ERROR', async () => {
    target.handle((_req, res) => void res.socket?.destroy());
    const reset = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: target.url }, retry_policy: { max_attempts: 1 } });
    expect((await finished(reset.executionId)).attempts[0]).toMatchObject({ status: 'CONNECTION_ERROR', errorClass: 'CONNECTION_ERROR' });

    const junk = net.createServer((socket) => socket.end('this is not HTTP at all\r\n\r\n', () => socket.destroy()));
    await new Promise<void>((r) => junk.listen(0, '127.0.0.1', r));
    const port = (junk.address() as AddressInfo).port;
    const garbage = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: `http://127.0.0.1:${port}/` }, retry_policy: { max_attempts: 1 } });
    const exe = await finished(garbage.executionId);
    await new Promise((r) => junk.close(r));
    expect(exe.attempts[0]).toMatchObject({ status: 'CONNECTION_ERROR', errorClass: 'CONNECTION_ERROR', statusCode: null });
  });

  it('reads at most 1 MiB of an endless answer and keeps a 64 KiB preview', async () => {
    let sent = 0;
    target.handle((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        // Up to 1 GB, stopping as soon as the client hangs up.
        while (!res.destroyed && sent < 1024 ** 3) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const { executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: target.url, timeout_seconds: 30 }, retry_policy: { max_attempts: 1 } });
    const exe = await finished(executionId, 20_000);
    expect(exe.status).toBe('succeeded');
    expect(exe.attempts[0].latencyMs).toBeLessThan(10_000);
    expect(Buffer.byteLength(exe.attempts[0].bodyPreview ?? '')).toBe(64 * 1024);
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });
});

describe('statuses', () => {
  it('moves queued -> running -> succeeded', async () => {
    const release = holdAnswers(target, 'late');
    const job = await aJob(ctx.runtime, workspaceId, { request: { url: target.url } });
    const exe = await runNow(ctx.runtime, workspaceId, job.id);
    expect(exe.status).toBe('queued');
    await waitFor(async () => (await getExecution(ctx.runtime, workspaceId, exe.id)).status === 'running', { what: 'running' });
    release();
    expect((await finished(exe.id)).status).toBe('succeeded');
    expect((await ctx.runtime.db.job.findUnique({ where: { id: job.id } }))?.state).toBe('active');
  });
});
