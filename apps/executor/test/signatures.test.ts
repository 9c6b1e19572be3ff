import type { IncomingHttpHeaders } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { generateSigningKey, getSigningKey, rotateSigningKey, traceIdOf } from '@cronsvc/core';
import { answerInTurn, aOneTimeExecution, finishedExecution, type ReceivedRequest, type TargetServer, type TestContext } from '@cronsvc/core/testing';
import { useExecutorFixture } from './executor-fixture.js';

// End to end (docs/SECURITY.md): the executor signs each request the Standard Webhooks way and a
// target verifies it with the stock `standardwebhooks` library and the key GET /v1/signing-key
// answers (getSigningKey is what that endpoint returns).

let ctx: TestContext;
let target: TargetServer;
let workspaceId: string;

const fixture = useExecutorFixture({ workspace: 'signed' });
beforeAll(() => ({ ctx, target, workspaceId } = fixture));

/** Runs a one-time job sending `request` to its end; returns the execution's id. */
async function run(request: Record<string, unknown>): Promise<string> {
  const { executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, { request });
  await finishedExecution(ctx.runtime, workspaceId, executionId);
  return executionId;
}

/** What a target's verifier sees: every header as a single string, as frameworks hand them over. */
function flat(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value ?? '']));
}

function verify(secret: string, received: ReceivedRequest): unknown {
  return new Webhook(secret).verify(received.body, flat(received.headers));
}

const signingKey = async () => (await getSigningKey(ctx.runtime, workspaceId)).signing_key;

describe('signed outbound requests', () => {
  it('signs a JSON body so the target verifies it with the workspace key', async () => {
    const key = await signingKey();
    const executionId = await run({ url: `${target.url}/hook`, method: 'POST', body: { hello: 'world' } });
    expect(target.received).toHaveLength(1);
    const got = target.received[0];
    expect(got.body).toBe('{"hello":"world"}');
    expect(verify(key, got)).toEqual({ hello: 'world' });
    expect(got.headers['webhook-id']).toBe(executionId);
    expect(got.headers['x-cron-service-execution-id']).toBe(executionId);
    expect(got.headers['x-cron-service-signature']).toBe(got.headers['webhook-signature']);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(() => verify(generateSigningKey(), got)).toThrow(WebhookVerificationError);
  });

  it('signs a request without a body over the empty string', async () => {
    const key = await signingKey();
    const executionId = await run({ url: `${target.url}/ping` });
    const got = target.received[0];
    expect(got).toMatchObject({ method: 'GET', body: '' });
    expect(got.headers['webhook-signature']).toMatch(/^v1,/);
    expect(() => verify(key, got)).not.toThrow();
    expect(() => new Webhook(key).verify('{}', flat(got.headers))).toThrow(WebhookVerificationError);
    expect(got.headers['webhook-id']).toBe(executionId);
    expect(got.headers['x-cron-service-signature']).toBe(got.headers['webhook-signature']);
  });

  it('signs every attempt afresh under the same webhook-id', async () => {
    const key = await signingKey();
    answerInTurn(target, [503, 200]);
    const executionId = await run({ url: target.url, method: 'PUT', body: 'plain text' });
    expect(target.received).toHaveLength(2);
    for (const got of target.received) {
      expect(got.headers['webhook-id']).toBe(executionId);
      expect(() => new Webhook(key).verify(got.body, flat(got.headers), { jsonParse: false })).not.toThrow();
    }
  });

  it('carries a W3C traceparent: one trace per execution, a span per attempt, another trace for another execution', async () => {
    answerInTurn(target, [503, 200]);
    const executionId = await run({ url: `${target.url}/traced`, headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } });
    const other = await run({ url: `${target.url}/traced` });
    const parts = target.received.map((r) => String(r.headers.traceparent).split('-'));
    expect(target.received.map((r) => r.headers.traceparent)).toEqual(target.received.map(() => expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/)));
    expect(parts[0][1]).toBe(traceIdOf(executionId));
    expect(parts[1][1]).toBe(parts[0][1]);
    expect(parts[1][2]).not.toBe(parts[0][2]);
    expect(parts[2][1]).toBe(traceIdOf(other));
    expect(parts[2][1]).not.toBe(parts[0][1]);
  });

  it('after a rotation, carries signatures that both the old and the new key verify', async () => {
    const old = await signingKey();
    const fresh = (await rotateSigningKey(ctx.runtime, workspaceId)).signing_key;
    expect(fresh).not.toBe(old);
    const executionId = await run({ url: target.url, method: 'POST', body: [1, 2, 3] });
    const got = target.received[0];
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(fresh, got)).toEqual([1, 2, 3]);
    expect(verify(old, got)).toEqual([1, 2, 3]);
    expect(got.headers['x-cron-service-signature']).toBe(got.headers['webhook-signature']);
    expect(got.headers['webhook-id']).toBe(executionId);
  });
});
