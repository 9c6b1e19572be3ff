import type { RetryPolicy } from '@cronsvc/contracts';
import type { HttpResult } from '../http/http-client.js';
import { decideAttempt, httpErrorClass } from './decide-attempt.js';
import type { RetryTiming } from './retry-at.js';

const retry: RetryPolicy = { max_attempts: 3, retry_on_statuses: [429, 500, 502, 503, 504] };
const checks = { success_statuses: [200, 201, 202, 204] };
const now = new Date('2030-01-01T00:00:00.000Z');
const timing: RetryTiming = { now, retryAfterMaxMs: 600_000, random: () => 0.5 };

const answer = (statusCode: number, body = ''): HttpResult => ({
  kind: 'response',
  statusCode,
  headers: {},
  allHeaders: { 'content-type': 'text/plain' },
  body: Buffer.from(body),
  truncated: false,
  latencyMs: 5,
  timings: { dns_ms: null, connect_ms: null, tls_ms: null, ttfb_ms: 4, total_ms: 5 },
});
const transport = (errorClass: Extract<HttpResult, { kind: 'error' }>['errorClass']): HttpResult => ({ kind: 'error', errorClass, message: `${errorClass} happened`, latencyMs: 5, timings: { dns_ms: null, connect_ms: null, tls_ms: null, ttfb_ms: null, total_ms: 5 } });

describe('decideAttempt', () => {
  it('succeeds on a success status whose body passes the checks', () => {
    expect(decideAttempt(answer(204), '', checks, retry, 1, {}, timing)).toEqual({ status: 'SUCCESS', errorClass: null, errorMessage: null, outcome: 'succeeded' });
  });

  it.each(['TIMEOUT', 'CONNECTION_ERROR', 'DNS_ERROR', 'TLS_ERROR'] as const)('retries a %s while attempts remain, and fails it on the last', (errorClass) => {
    const status = errorClass === 'TIMEOUT' ? 'TIMEOUT' : 'CONNECTION_ERROR';
    expect(decideAttempt(transport(errorClass), '', checks, retry, 2, {}, timing)).toEqual({ status, errorClass, errorMessage: `${errorClass} happened`, outcome: 'retry', retryAt: new Date(now.getTime() + 1000) });
    expect(decideAttempt(transport(errorClass), '', checks, retry, 3, {}, timing)).toMatchObject({ status, errorClass, outcome: 'failed' });
  });

  it('fails a refused target at once: no retry can make it public', () => {
    expect(decideAttempt(transport('BLOCKED_TARGET'), '', checks, retry, 1, {}, timing)).toMatchObject({ status: 'CONNECTION_ERROR', errorClass: 'BLOCKED_TARGET', outcome: 'failed' });
  });

  it('retries a status in retry_on_statuses while attempts remain, and fails it on the last', () => {
    expect(decideAttempt(answer(503), '', checks, retry, 1, {}, timing)).toEqual({ status: 'HTTP_ERROR', errorClass: 'HTTP_5XX', errorMessage: 'status 503 is not a success status', outcome: 'retry', retryAt: new Date(now.getTime() + 500) });
    expect(decideAttempt(answer(503), '', checks, retry, 3, {}, timing)).toMatchObject({ errorClass: 'HTTP_5XX', outcome: 'failed' });
  });

  it('fails at once a status that is neither a success nor in retry_on_statuses', () => {
    expect(decideAttempt(answer(404), '', checks, retry, 1, {}, timing)).toMatchObject({ status: 'HTTP_ERROR', errorClass: 'HTTP_4XX', outcome: 'failed' });
    expect(decideAttempt(answer(301), '', checks, retry, 1, {}, timing)).toMatchObject({ errorClass: 'HTTP_3XX', outcome: 'failed' });
  });

  it('counts only the listed success statuses as success, whatever the class', () => {
    expect(decideAttempt(answer(200), '', { success_statuses: [202] }, retry, 1, {}, timing)).toMatchObject({ errorClass: 'HTTP_2XX', outcome: 'failed' });
    expect(decideAttempt(answer(418), '', { success_statuses: [418] }, retry, 1, {}, timing)).toMatchObject({ outcome: 'succeeded' });
  });

  it('fails a success status whose body matches failure_pattern as RESPONSE_MISMATCH, with no retry', () => {
    const matcher = { ...checks, response_matcher: { failure_pattern: 'ERROR' } };
    expect(decideAttempt(answer(200, 'an ERROR here'), 'an ERROR here', matcher, retry, 1, {}, timing)).toMatchObject({ status: 'HTTP_ERROR', errorClass: 'RESPONSE_MISMATCH', outcome: 'failed' });
  });

  it('never turns a failed status into success by matching its body', () => {
    const matcher = { ...checks, response_matcher: { success_pattern: 'ok' } };
    expect(decideAttempt(answer(500, 'ok'), 'ok', matcher, retry, 1, {}, timing)).toMatchObject({ errorClass: 'HTTP_5XX', outcome: 'retry', retryAt: new Date(now.getTime() + 500) });
  });

  it('fails a success status whose assertions fail, naming them', () => {
    const asserted = { ...checks, response_assertions: { text: [{ op: 'contains' as const, value: 'done' }] } };
    const verdict = decideAttempt(answer(200, 'pending'), 'pending', asserted, retry, 1, {}, timing);
    expect(verdict).toMatchObject({ errorClass: 'RESPONSE_MISMATCH', outcome: 'failed' });
    expect(verdict.errorMessage).toMatch(/^assertions failed: text contains "done"/);
  });
});

describe('httpErrorClass', () => {
  it.each([
    [404, 'HTTP_4XX'],
    [500, 'HTTP_5XX'],
    [599, 'HTTP_5XX'],
    [302, 'HTTP_3XX'],
    [101, 'HTTP_1XX'],
  ])('classes %i as %s', (status, errorClass) => {
    expect(httpErrorClass(status)).toBe(errorClass);
  });
});
