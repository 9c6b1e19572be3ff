import type { HttpResult } from '../http/http-client.js';
import { backoffMs, hostCooldownUntil, retryAt, type RetryTiming } from './retry-at.js';

const now = new Date('2030-01-01T00:00:00.000Z');
const timing: RetryTiming = { now, retryAfterMaxMs: 600_000, random: () => 0.5 };
const at = (ms: number) => new Date(now.getTime() + ms);
const answer = (statusCode: number, retryAfter?: string): HttpResult => ({
  kind: 'response',
  statusCode,
  headers: {},
  allHeaders: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
  body: Buffer.alloc(0),
  timings: { dns_ms: null, connect_ms: null, tls_ms: null, ttfb_ms: 4, total_ms: 5 },
  truncated: false,
  latencyMs: 5,
});

describe('backoffMs', () => {
  it('waits 250 ms x 2^n before attempt n + 1, times a factor in [0.8, 1.2]', () => {
    expect(backoffMs(1, () => 0.5)).toBe(500);
    expect(backoffMs(3, () => 0.5)).toBe(2000);
    expect(backoffMs(2, () => 0)).toBe(800);
    expect(backoffMs(2, () => 1)).toBe(1200);
  });

  it('stays within the jitter bounds for any random draw', () => {
    for (let n = 1; n <= 9; n += 1) {
      const ms = backoffMs(n);
      expect(ms).toBeGreaterThanOrEqual(Math.floor(250 * 2 ** n * 0.8));
      expect(ms).toBeLessThanOrEqual(Math.ceil(250 * 2 ** n * 1.2));
    }
  });
});
describe('hostCooldownUntil', () => {
  it('reads Retry-After of a 429 or a 503, in seconds or as an HTTP date', () => {
    expect(hostCooldownUntil(answer(429, '30'), timing)).toEqual(at(30_000));
    expect(hostCooldownUntil(answer(503, at(45_000).toUTCString()), timing)).toEqual(at(45_000));
  });

  it('caps it at RETRY_AFTER_MAX_SECONDS', () => {
    expect(hostCooldownUntil(answer(429, '86400'), timing)).toEqual(at(600_000));
  });

  it('ignores it on other statuses, when absent, zero or unreadable', () => {
    expect(hostCooldownUntil(answer(500, '30'), timing)).toBeNull();
    expect(hostCooldownUntil(answer(429), timing)).toBeNull();
    expect(hostCooldownUntil(answer(429, '0'), timing)).toBeNull();
    expect(hostCooldownUntil(answer(429, 'later'), timing)).toBeNull();
    expect(hostCooldownUntil({ kind: 'error', errorClass: 'TIMEOUT', message: 'timed out', latencyMs: 5, timings: { dns_ms: null, connect_ms: null, tls_ms: null, ttfb_ms: null, total_ms: 5 } }, timing)).toBeNull();
  });
});

describe('retryAt', () => {
  it('is the backoff when the host asked nothing', () => {
    expect(retryAt(1, timing, null)).toEqual(at(500));
    expect(retryAt(3, timing, null)).toEqual(at(2000));
  });

  it('waits for the cool-down when it ends after the backoff, never less than the backoff', () => {
    expect(retryAt(1, timing, at(30_000))).toEqual(at(30_000));
    expect(retryAt(3, timing, at(100))).toEqual(at(2000));
  });

  it('is never after the deadline of a workflow run', () => {
    expect(retryAt(1, { ...timing, deadline: at(10_000) }, at(30_000))).toEqual(at(10_000));
    expect(retryAt(5, { ...timing, deadline: at(1_000) }, null)).toEqual(at(1_000));
  });
});
