import { decideDelivery, deliveryBackoffMs, MAX_RETRY_AFTER_MS, retryAfterMs, type SendResult } from './delivery-policy.js';

const now = new Date('2030-01-01T00:00:00.000Z');
const answered = (statusCode: number, retryAfter: number | null = null): SendResult => ({ statusCode, error: `receiver answered ${statusCode}`, retryAfterMs: retryAfter });

describe('delivery backoff', () => {
  it('waits 1 s x 2^(n-1) after attempt n, within the jitter of 0.8 to 1.2', () => {
    expect([1, 2, 3, 4].map((n) => deliveryBackoffMs(n, () => 0.5))).toEqual([1000, 2000, 4000, 8000]);
    expect(deliveryBackoffMs(3, () => 0)).toBe(3200);
    expect(deliveryBackoffMs(3, () => 1)).toBe(4800);
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates', () => {
    expect(retryAfterMs('7', now)).toBe(7000);
    expect(retryAfterMs(' 2 ', now)).toBe(2000);
    expect(retryAfterMs(new Date(now.getTime() + 30_000).toUTCString(), now)).toBe(30_000);
  });

  it('clamps to at most one hour, and a date in the past to now', () => {
    expect(retryAfterMs('999999999', now)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryAfterMs(new Date(now.getTime() + 86_400_000 * 365).toUTCString(), now)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryAfterMs(new Date(now.getTime() - 60_000).toUTCString(), now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    expect(retryAfterMs(undefined, now)).toBeNull();
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs('-5', now)).toBeNull();
  });
});

describe('decideDelivery', () => {
  it('records a sent delivery', () => {
    expect(decideDelivery({ statusCode: 204, error: null, retryAfterMs: null }, 'sent', 1)).toEqual({ outcome: 'sent' });
  });

  it('fails a permanent failure at once, whatever attempt it is', () => {
    expect(decideDelivery(answered(404), 'permanent', 1)).toEqual({ outcome: 'failed', error: 'receiver answered 404' });
  });

  it('retries a transient failure with backoff until the fifth attempt, then fails', () => {
    expect(decideDelivery(answered(503), 'transient', 1, () => 0.5)).toEqual({ outcome: 'retry', error: 'receiver answered 503', delayMs: 1000 });
    expect(decideDelivery(answered(503), 'transient', 4, () => 0.5)).toMatchObject({ outcome: 'retry', delayMs: 8000 });
    expect(decideDelivery(answered(503), 'transient', 5)).toEqual({ outcome: 'failed', error: 'receiver answered 503' });
  });

  it('waits what a 429 asks for instead of the backoff, and only for a 429', () => {
    expect(decideDelivery(answered(429, 30_000), 'transient', 1)).toMatchObject({ outcome: 'retry', delayMs: 30_000 });
    expect(decideDelivery(answered(429, null), 'transient', 2, () => 0.5)).toMatchObject({ outcome: 'retry', delayMs: 2000 });
    expect(decideDelivery(answered(503, 30_000), 'transient', 1, () => 0.5)).toMatchObject({ outcome: 'retry', delayMs: 1000 });
  });
});
