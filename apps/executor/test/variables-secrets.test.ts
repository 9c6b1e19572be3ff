import { randomBytes } from 'node:crypto';
import { createSecret, deleteSecret, getExecution, runNow, updateSecret } from '@cronsvc/core';
import { aJob, answerInTurn, aOneTimeExecution, finishedExecution, type ReceivedRequest, type TargetServer, type TestContext } from '@cronsvc/core/testing';
import { useExecutorFixture } from './executor-fixture.js';

// Dynamic variables and secrets at execution time (docs/JOBS.md): rendered once per
// execution, secrets read when the request is made and kept out of everything stored.

let ctx: TestContext;
let target: TargetServer;
let workspaceId: string;

const fixture = useExecutorFixture();
beforeAll(() => ({ ctx, target, workspaceId } = fixture));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A fresh secret, long and random enough that finding it anywhere cannot be a coincidence. */
async function secret(prefix: string) {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const value = `val_${randomBytes(12).toString('hex')}`;
  const row = await createSecret(ctx.runtime, workspaceId, { name, value });
  return { id: row.id, name, value };
}

const finished = (executionId: string) => finishedExecution(ctx.runtime, workspaceId, executionId);

/** The uuid and timestamp a request carried, from a `/v/{{uuid}}?at={{timestamp}}` URL. */
function variablesOf(req: ReceivedRequest) {
  const url = new URL(req.url, 'http://target');
  return { uuid: url.pathname.split('/')[2], timestamp: url.searchParams.get('at') };
}

describe('rendering variables', () => {
  it('renders uuid, timestamp, execution_id and secrets into the URL, header values and every string of a JSON body', async () => {
    const key = await secret('KEY');
    const before = Date.now();
    const { executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, {
      request: {
        url: `${target.url}/v/{{uuid}}?at={{ timestamp }}`,
        method: 'POST',
        headers: { Authorization: `Bearer {{secret.${key.name}}}`, 'X-Run': '{{execution_id}}' },
        body: { id: '{{uuid}}', meta: { run: '{{execution_id}}', list: ['{{timestamp}}', 1] } },
      },
    });
    const exe = await finished(executionId);
    expect(exe.status).toBe('succeeded');
    const got = target.received[0];
    const { uuid, timestamp } = variablesOf(got);
    expect(uuid).toMatch(UUID);
    expect(timestamp).toMatch(ISO_MS);
    expect(new Date(timestamp!).getTime()).toBeGreaterThanOrEqual(before - 5);
    expect(new Date(timestamp!).getTime()).toBeLessThanOrEqual(exe.finishedAt!.getTime());
    expect(got.headers.authorization).toBe(`Bearer ${key.value}`);
    expect(got.headers['x-run']).toBe(executionId);
    expect(got.headers['x-cron-service-execution-id']).toBe(executionId);
    expect(got.headers['content-type']).toBe('application/json');
    expect(JSON.parse(got.body)).toEqual({ id: uuid, meta: { run: executionId, list: [timestamp, 1] } });
  });

  it('renders a string body and sends placeholders inside a secret value literally', async () => {
    const literal = await createSecret(ctx.runtime, workspaceId, { name: `LIT_${randomBytes(4).toString('hex')}`, value: 'raw{{uuid}}raw' });
    const { executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: target.url, method: 'PUT', headers: { 'X-Lit': `{{secret.${literal.name}}}` }, body: 'exe={{execution_id}}' } });
    await finished(executionId);
    expect(target.received[0].headers['x-lit']).toBe('raw{{uuid}}raw');
    expect(target.received[0].body).toBe(`exe=${executionId}`);
    expect(target.received[0].headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('reuses one uuid and timestamp on every retry of an execution', async () => {
    answerInTurn(target, [503, 200]);
    const { executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: `${target.url}/v/{{uuid}}?at={{timestamp}}`, headers: { 'X-Run': '{{execution_id}}' } } });
    const exe = await finished(executionId);
    expect(exe.attempts.map((a) => a.statusCode)).toEqual([503, 200]);
    expect(target.received).toHaveLength(2);
    const [first, second] = target.received.map(variablesOf);
    expect(first.uuid).toMatch(UUID);
    expect(second).toEqual(first);
    expect(target.received.map((r) => r.headers['x-run'])).toEqual([executionId, executionId]);
  });

  it('gives each execution of a job its own uuid', async () => {
    const job = await aJob(ctx.runtime, workspaceId, { request: { url: `${target.url}/v/{{uuid}}?at={{timestamp}}` } });
    const a = await runNow(ctx.runtime, workspaceId, job.id);
    await finished(a.id);
    const b = await runNow(ctx.runtime, workspaceId, job.id);
    await finished(b.id);
    const uuids = target.received.map((r) => variablesOf(r).uuid);
    expect(uuids).toHaveLength(2);
    expect(uuids[0]).toMatch(UUID);
    expect(uuids[1]).toMatch(UUID);
    expect(uuids[1]).not.toBe(uuids[0]);
  });
});

describe('secrets at execution time', () => {
  it('reads the secret when the request is made, so a value changed after the job was saved is the one sent', async () => {
    const key = await secret('ROTATED');
    const job = await aJob(ctx.runtime, workspaceId, { request: { url: target.url, headers: { 'X-Key': `{{secret.${key.name}}}` } } });
    await updateSecret(ctx.runtime, workspaceId, key.id, { value: 'the-rotated-value' });
    const exe = await runNow(ctx.runtime, workspaceId, job.id);
    await finished(exe.id);
    expect(target.received.map((r) => r.headers['x-key'])).toEqual(['the-rotated-value']);
  });

  it('stores only ciphertext for the secret', async () => {
    const key = await secret('AT_REST');
    const row = await ctx.runtime.db.secret.findUniqueOrThrow({ where: { id: key.id } });
    expect(row.value).not.toBe(key.value);
    expect(row.value).not.toContain(key.value);
  });

  it('keeps the secret value out of the stored execution, masking it in attempts, previews and response headers the target echoes it into', async () => {
    const key = await secret('ECHOED');
    let calls = 0;
    target.handle((req, res) => {
      calls += 1;
      res.statusCode = calls === 1 ? 503 : 200;
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('X-Request-Id', `req-${req.headers['x-key']}`);
      res.end(JSON.stringify({ you_sent: req.headers['x-key'], body: req.body }));
    });
    const { job, executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: target.url, method: 'POST', headers: { 'X-Key': `{{secret.${key.name}}}` }, body: { k: `{{secret.${key.name}}}` } } });
    const exe = await finished(executionId);
    expect(target.received.map((r) => r.headers['x-key'])).toEqual([key.value, key.value]);
    expect(exe.attempts).toHaveLength(2);
    for (const attempt of exe.attempts) {
      expect(attempt.bodyPreview).toContain('"you_sent":"[secret]"');
      expect(attempt.responseHeaders).toMatchObject({ 'x-request-id': 'req-[secret]' });
    }
    expect(JSON.stringify(exe.finalResponse)).toContain('[secret]');
    const stored = JSON.stringify(await ctx.runtime.db.execution.findUniqueOrThrow({ where: { id: executionId }, include: { attempts: true } }));
    expect(stored).not.toContain(key.value);
    expect(JSON.stringify(await ctx.runtime.db.job.findUniqueOrThrow({ where: { id: job.id } }))).not.toContain(key.value);
  });

  it('fails with SECRET_NOT_FOUND, without retrying or calling the target, when the secret was deleted after the job was saved', async () => {
    const key = await secret('DELETED');
    const job = await aJob(ctx.runtime, workspaceId, { request: { url: target.url, headers: { 'X-Key': `{{secret.${key.name}}}` } }, retry_policy: { max_attempts: 3 } });
    await deleteSecret(ctx.runtime, workspaceId, key.id);
    const started = await runNow(ctx.runtime, workspaceId, job.id);
    const exe = await finished(started.id);
    expect(exe).toMatchObject({ status: 'failed', attemptCount: 1, errorClass: 'SECRET_NOT_FOUND' });
    expect(exe.errorMessage).toContain(key.name);
    expect(exe.attempts).toHaveLength(1);
    expect(exe.attempts[0].errorClass).toBe('SECRET_NOT_FOUND');
    expect(exe.deadLetteredAt).not.toBeNull();
    // Give a wrongly scheduled retry time to show up before concluding there is none.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await getExecution(ctx.runtime, workspaceId, started.id)).attempts).toHaveLength(1);
    expect(target.received).toHaveLength(0);
  });
});

describe('the request each attempt records', () => {
  it('records each attempt’s request as sent, with [secret] exactly where each secret went, however short', async () => {
    const long = await secret('LONG');
    const short = await createSecret(ctx.runtime, workspaceId, { name: `SHORT_${randomBytes(4).toString('hex')}`, value: 'q7z' });
    answerInTurn(target, [503, 200]);
    const { executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, {
      request: {
        url: `${target.url}/r?token={{secret.${long.name}}}&at={{timestamp}}`,
        method: 'POST',
        headers: { Authorization: `Bearer {{secret.${short.name}}}`, 'X-Run': '{{execution_id}}' },
        body: { key: `{{secret.${long.name}}}`, id: '{{uuid}}' },
      },
    });
    const exe = await finished(executionId);
    expect(exe.attempts).toHaveLength(2);
    for (const [i, got] of target.received.entries()) {
      expect(got.headers.authorization).toBe('Bearer q7z');
      const at = new URL(got.url, target.url).searchParams.get('at');
      expect(JSON.parse(got.body).key).toBe(long.value);
      expect(exe.attempts[i].request).toEqual({
        method: 'POST',
        url: `${target.url}/r?token=[secret]&at=${at}`,
        headers: {
          Authorization: 'Bearer [secret]',
          'X-Run': executionId,
          'Content-Type': 'application/json',
          'X-Cron-Service-Execution-Id': executionId,
          'webhook-id': got.headers['webhook-id'],
          'webhook-timestamp': got.headers['webhook-timestamp'],
          'webhook-signature': got.headers['webhook-signature'],
          'X-Cron-Service-Signature': got.headers['x-cron-service-signature'],
          traceparent: got.headers.traceparent,
        },
        body: got.body.replace(long.value, '[secret]'),
        bodyTruncated: false,
      });
    }
    expect(JSON.stringify(exe.attempts.map((a) => a.request))).not.toContain(long.value);
  });

  it('records a request without secrets as sent, its body cut at 64 KiB, and none for an attempt that sent nothing', async () => {
    const body = `${'x'.repeat(70_000)} {{execution_id}}`;
    const { executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: `${target.url}/big`, method: 'PUT', body } });
    const exe = await finished(executionId);
    expect(target.received[0].body).toBe(`${'x'.repeat(70_000)} ${executionId}`);
    expect(exe.attempts[0].request).toMatchObject({ method: 'PUT', url: `${target.url}/big`, body: 'x'.repeat(64 * 1024), bodyTruncated: true });
    expect((exe.attempts[0].request as { headers: Record<string, string> }).headers['Content-Type']).toBe('text/plain; charset=utf-8');

    const gone = await secret('GONE');
    const job = await aJob(ctx.runtime, workspaceId, { request: { url: target.url, headers: { 'X-Key': `{{secret.${gone.name}}}` } } });
    await deleteSecret(ctx.runtime, workspaceId, gone.id);
    const unsent = await finished((await runNow(ctx.runtime, workspaceId, job.id)).id);
    expect(unsent.attempts[0]).toMatchObject({ errorClass: 'SECRET_NOT_FOUND', request: null });
  });
});
