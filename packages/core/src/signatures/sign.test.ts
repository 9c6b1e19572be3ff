import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { OutboundRequest } from '../http/http-client.js';
import { signatureHeaders, withSignature } from './sign.js';
import { generateSigningKey, signingKeyBytes } from './signing-key-format.js';

const nowSeconds = () => Math.floor(Date.now() / 1000);

// The plain node:crypto verifier from README "Verifying signatures", with types added: a target
// that copies it from there must accept what we send. Keep the two in step.
const TOLERANCE_SECONDS = 5 * 60;
function verifySignature(secret: string, headers: Record<string, string | undefined>, rawBody: string | Buffer, now = Math.floor(Date.now() / 1000)): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) return false;
  if (!/^\d+$/.test(timestamp) || Math.abs(now - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(rawBody).digest();
  return signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

describe('signatureHeaders', () => {
  const current = generateSigningKey();
  const previous = generateSigningKey();
  const body = '{"hello":"world","n":[1,2]}';

  it('matches the Standard Webhooks specification test vector', () => {
    const keys = { current: signingKeyBytes('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw') };
    const headers = signatureHeaders(keys, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    expect(headers['webhook-signature']).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('sets webhook-id, webhook-timestamp, webhook-signature and an identical X-Cron-Service-Signature', () => {
    const headers = signatureHeaders({ current: signingKeyBytes(current) }, 'exe_1', 1700000000, body);
    expect(Object.keys(headers).sort()).toEqual(['X-Cron-Service-Signature', 'webhook-id', 'webhook-signature', 'webhook-timestamp']);
    expect(headers).toMatchObject({ 'webhook-id': 'exe_1', 'webhook-timestamp': '1700000000' });
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(headers['X-Cron-Service-Signature']).toBe(headers['webhook-signature']);
  });

  it('verifies with the standardwebhooks library', () => {
    const headers = signatureHeaders({ current: signingKeyBytes(current) }, 'exe_2', nowSeconds(), body);
    expect(new Webhook(current).verify(body, headers)).toEqual({ hello: 'world', n: [1, 2] });
  });

  it('verifies an empty body with the library', () => {
    const headers = signatureHeaders({ current: signingKeyBytes(current) }, 'exe_3', nowSeconds(), '');
    expect(() => new Webhook(current).verify('', headers)).not.toThrow();
    expect(() => new Webhook(current).verify('x', headers)).toThrow(WebhookVerificationError);
  });

  it('carries a second space-separated entry with the previous key, and each key verifies', () => {
    const headers = signatureHeaders({ current: signingKeyBytes(current), previous: signingKeyBytes(previous) }, 'exe_4', nowSeconds(), body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(headers['X-Cron-Service-Signature']).toBe(headers['webhook-signature']);
    expect(new Webhook(current).verify(body, headers)).toEqual({ hello: 'world', n: [1, 2] });
    expect(new Webhook(previous).verify(body, headers)).toEqual({ hello: 'world', n: [1, 2] });
    expect(() => new Webhook(generateSigningKey()).verify(body, headers)).toThrow(WebhookVerificationError);
  });

  it('fails verification when the body, id or timestamp was altered', () => {
    const ts = nowSeconds();
    const headers = signatureHeaders({ current: signingKeyBytes(current), previous: signingKeyBytes(previous) }, 'exe_5', ts, body);
    const hook = new Webhook(current);
    expect(() => hook.verify(body.replace('world', 'World'), headers)).toThrow(WebhookVerificationError);
    expect(() => hook.verify(body, { ...headers, 'webhook-id': 'exe_6' })).toThrow(WebhookVerificationError);
    expect(() => hook.verify(body, { ...headers, 'webhook-timestamp': String(ts - 1) })).toThrow(WebhookVerificationError);
  });

  it('rejects a timestamp that is not whole seconds', () => {
    expect(() => signatureHeaders({ current: signingKeyBytes(current) }, 'exe_7', 1700000000.5, body)).toThrow(RangeError);
  });
});

describe('verifying by hand with node:crypto (README snippet)', () => {
  const current = generateSigningKey();
  const previous = generateSigningKey();
  const body = '{"a":"ünïcode"}';

  it('accepts what we sign, with either key during a rotation, and with an empty body', () => {
    const ts = nowSeconds();
    const headers = signatureHeaders({ current: signingKeyBytes(current), previous: signingKeyBytes(previous) }, 'exe_8', ts, body);
    expect(verifySignature(current, headers, body)).toBe(true);
    expect(verifySignature(previous, headers, body)).toBe(true);
    expect(verifySignature(current, headers, Buffer.from(body, 'utf8'))).toBe(true);
    const empty = signatureHeaders({ current: signingKeyBytes(current) }, 'exe_9', ts, '');
    expect(verifySignature(current, empty, '')).toBe(true);
  });

  it('rejects a tampered body, another key, missing headers and a timestamp over 5 minutes away', () => {
    const ts = nowSeconds();
    const headers = signatureHeaders({ current: signingKeyBytes(current) }, 'exe_10', ts, body);
    expect(verifySignature(current, headers, body + ' ')).toBe(false);
    expect(verifySignature(generateSigningKey(), headers, body)).toBe(false);
    expect(verifySignature(current, { ...headers, 'webhook-signature': undefined }, body)).toBe(false);
    expect(verifySignature(current, headers, body, ts + 5 * 60)).toBe(true);
    expect(verifySignature(current, headers, body, ts + 5 * 60 + 1)).toBe(false);
    expect(verifySignature(current, headers, body, ts - 5 * 60 - 1)).toBe(false);
  });
});

describe('withSignature', () => {
  const key = generateSigningKey();
  const base = { url: 'https://example.com/', workspaceId: 'ws_1', method: 'POST', timeoutMs: 1000 };
  const signRequest = (request: OutboundRequest, messageId: string, ts: number) =>
    withSignature(request, signatureHeaders({ current: signingKeyBytes(key) }, messageId, ts, request.body ?? ''));

  it('signs the exact body sent, and signs a missing body as empty', () => {
    const ts = nowSeconds();
    const withBody = signRequest({ ...base, headers: { 'Content-Type': 'application/json' }, body: '{"x":1}' }, 'exe_11', ts);
    expect(withBody.body).toBe('{"x":1}');
    expect(withBody.headers['Content-Type']).toBe('application/json');
    expect(new Webhook(key).verify('{"x":1}', withBody.headers)).toEqual({ x: 1 });
    const none = signRequest({ ...base, headers: {}, body: null }, 'exe_12', ts);
    expect(none.body).toBeNull();
    expect(none.headers['webhook-signature']).toBe(signatureHeaders({ current: signingKeyBytes(key) }, 'exe_12', ts, '')['webhook-signature']);
  });

  it('drops job headers that would shadow the signature headers, whatever their case', () => {
    const forged = { 'Webhook-Signature': 'v1,forged', 'x-cron-service-signature': 'v1,forged', 'WEBHOOK-ID': 'x', 'X-Other': 'kept' };
    const signed = signRequest({ ...base, headers: forged, body: '' }, 'exe_13', nowSeconds());
    expect(Object.keys(signed.headers).sort()).toEqual(['X-Cron-Service-Signature', 'X-Other', 'webhook-id', 'webhook-signature', 'webhook-timestamp']);
    expect(JSON.stringify(signed.headers)).not.toContain('forged');
  });
});
