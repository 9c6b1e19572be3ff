import { parseRetryAfterMs } from './retry-after.js';

const now = new Date('2030-01-01T00:00:00.000Z');

describe('parseRetryAfterMs', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfterMs('7', now)).toBe(7000);
    expect(parseRetryAfterMs(' 2 ', now)).toBe(2000);
    expect(parseRetryAfterMs(new Date(now.getTime() + 30_000).toUTCString(), now)).toBe(30_000);
  });

  it('takes a date in the past as now, and leaves capping to its reader', () => {
    expect(parseRetryAfterMs(new Date(now.getTime() - 60_000).toUTCString(), now)).toBe(0);
    expect(parseRetryAfterMs('999999', now)).toBe(999_999_000);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfterMs(undefined, now)).toBeNull();
    expect(parseRetryAfterMs('soon', now)).toBeNull();
    expect(parseRetryAfterMs('-5', now)).toBeNull();
    expect(parseRetryAfterMs('1.5', now)).toBeNull();
  });
});
