import type { SendResult } from '../delivery-policy.js';
import { classifyHttp, WEBHOOK_STYLE_PERMANENT } from './http-send.js';

const result = (statusCode: number | null, unrecoverable = false): SendResult => ({ statusCode, error: statusCode === null ? 'failed' : null, retryAfterMs: null, unrecoverable });

describe('classifyHttp', () => {
  it.each([200, 201, 204, 299])('counts %i as sent', (status) => {
    expect(classifyHttp(result(status), WEBHOOK_STYLE_PERMANENT)).toBe('sent');
  });

  it.each([400, 401, 403, 404, 410, 413, 422])("fails %i at once, one of the type's permanent statuses", (status) => {
    expect(classifyHttp(result(status), WEBHOOK_STYLE_PERMANENT)).toBe('permanent');
  });

  it.each([408, 429, 500, 502, 503, 504, 302])('retries %i', (status) => {
    expect(classifyHttp(result(status), WEBHOOK_STYLE_PERMANENT)).toBe('transient');
  });

  it('retries a send without an answer (timeout, network error)', () => {
    expect(classifyHttp(result(null), WEBHOOK_STYLE_PERMANENT)).toBe('transient');
  });

  it('fails at once what no retry can fix (a refused target, a URL that cannot be built), whatever its status', () => {
    expect(classifyHttp(result(null, true), WEBHOOK_STYLE_PERMANENT)).toBe('permanent');
    expect(classifyHttp(result(503, true), WEBHOOK_STYLE_PERMANENT)).toBe('permanent');
  });

  it('uses the permanent statuses it is given', () => {
    expect(classifyHttp(result(422), new Set([400]))).toBe('transient');
  });
});
