import { nextRecurringFire } from './recurring.js';

const MINUTE = 60_000;
const ANCHOR = new Date('2024-01-01T00:00:00.000Z');
const plus = (base: Date, ms: number) => new Date(base.getTime() + ms);
const iso = (d: Date) => d.toISOString();

describe('nextRecurringFire', () => {
  it('fires one period after the anchor when asked at the anchor', () => {
    expect(iso(nextRecurringFire(ANCHOR, 15, ANCHOR))).toBe('2024-01-01T00:15:00.000Z');
  });

  it('fires on the grid point after a time between grid points', () => {
    expect(iso(nextRecurringFire(ANCHOR, 15, plus(ANCHOR, 7 * MINUTE)))).toBe('2024-01-01T00:15:00.000Z');
    expect(iso(nextRecurringFire(ANCHOR, 15, plus(ANCHOR, 22 * MINUTE + 30_000)))).toBe('2024-01-01T00:30:00.000Z');
  });

  it('returns the following grid point when `after` is exactly on a grid point', () => {
    expect(iso(nextRecurringFire(ANCHOR, 15, plus(ANCHOR, 15 * MINUTE)))).toBe('2024-01-01T00:30:00.000Z');
    expect(iso(nextRecurringFire(ANCHOR, 15, plus(ANCHOR, 45 * MINUTE)))).toBe('2024-01-01T01:00:00.000Z');
  });

  it('returns the grid point itself when `after` is a millisecond before it', () => {
    expect(iso(nextRecurringFire(ANCHOR, 15, plus(ANCHOR, 15 * MINUTE - 1)))).toBe('2024-01-01T00:15:00.000Z');
  });

  it('returns the next grid point when `after` is a millisecond past one', () => {
    expect(iso(nextRecurringFire(ANCHOR, 15, plus(ANCHOR, 15 * MINUTE + 1)))).toBe('2024-01-01T00:30:00.000Z');
  });

  it('fires one period after the anchor, never at the anchor, when `after` is before the anchor', () => {
    expect(iso(nextRecurringFire(ANCHOR, 15, plus(ANCHOR, -1)))).toBe('2024-01-01T00:15:00.000Z');
    expect(iso(nextRecurringFire(ANCHOR, 15, plus(ANCHOR, -15 * MINUTE)))).toBe('2024-01-01T00:15:00.000Z');
    expect(iso(nextRecurringFire(ANCHOR, 15, plus(ANCHOR, -10 * 86_400_000)))).toBe('2024-01-01T00:15:00.000Z');
  });

  it('stays on the exact grid far from the anchor', () => {
    const after = plus(ANCHOR, 1000 * 7 * MINUTE + 1_000);
    expect(nextRecurringFire(ANCHOR, 7, after).getTime()).toBe(ANCHOR.getTime() + 1001 * 7 * MINUTE);
  });

  it('does not drift when each fire is computed from the previous one', () => {
    let fire = ANCHOR;
    const offGrid: number[] = [];
    for (let k = 1; k <= 10_000; k++) {
      fire = nextRecurringFire(ANCHOR, 13, fire);
      if (fire.getTime() !== ANCHOR.getTime() + k * 13 * MINUTE) offGrid.push(k);
    }
    expect(offGrid).toEqual([]);
    expect(fire.toISOString()).toBe(new Date(ANCHOR.getTime() + 130_000 * MINUTE).toISOString());
  });

  it('does not drift when each fire is computed from a late run time', () => {
    // A run that finishes a bit late does not move the grid: the next fire is still on it.
    let fire = ANCHOR;
    for (let k = 1; k <= 500; k++) {
      const lateBy = (k * 7919) % (10 * MINUTE);
      fire = nextRecurringFire(ANCHOR, 10, plus(fire, lateBy));
      expect(fire.getTime()).toBe(ANCHOR.getTime() + k * 10 * MINUTE);
    }
  });

  it('keeps the seconds and milliseconds of an anchor that is not on a whole minute', () => {
    const anchor = new Date('2024-01-01T10:00:12.345Z');
    expect(iso(nextRecurringFire(anchor, 5, new Date('2024-01-01T10:07:00.000Z')))).toBe('2024-01-01T10:10:12.345Z');
    expect(iso(nextRecurringFire(anchor, 5, new Date('2024-01-01T10:10:12.345Z')))).toBe('2024-01-01T10:15:12.345Z');
  });

  it('fires every minute with N=1', () => {
    expect(iso(nextRecurringFire(ANCHOR, 1, plus(ANCHOR, 30_000)))).toBe('2024-01-01T00:01:00.000Z');
    expect(iso(nextRecurringFire(ANCHOR, 1, plus(ANCHOR, 59 * MINUTE)))).toBe('2024-01-01T01:00:00.000Z');
  });

  it('fires once a day with N=1440, at the anchor time of day', () => {
    const anchor = new Date('2024-01-01T09:30:00.000Z');
    expect(iso(nextRecurringFire(anchor, 1440, anchor))).toBe('2024-01-02T09:30:00.000Z');
    expect(iso(nextRecurringFire(anchor, 1440, new Date('2024-01-04T10:30:00.000Z')))).toBe('2024-01-05T09:30:00.000Z');
    expect(iso(nextRecurringFire(anchor, 1440, new Date('2024-01-04T09:29:59.999Z')))).toBe('2024-01-04T09:30:00.000Z');
  });

  it('crosses a leap day and a year end on the plain minute grid', () => {
    const anchor = new Date('2024-02-28T12:00:00.000Z');
    expect(iso(nextRecurringFire(anchor, 1440, new Date('2024-02-29T12:00:00.000Z')))).toBe('2024-03-01T12:00:00.000Z');
    const lateYear = new Date('2024-12-31T23:50:00.000Z');
    expect(iso(nextRecurringFire(lateYear, 20, lateYear))).toBe('2025-01-01T00:10:00.000Z');
  });

  it('always returns the first grid point strictly after `after`', () => {
    const wrong: string[] = [];
    for (const n of [1, 2, 7, 60, 61, 1439, 1440]) {
      const period = n * MINUTE;
      for (let offset = -3 * MINUTE; offset < 3 * period; offset += Math.max(1_000, Math.floor(period / 97)) + 13) {
        const after = ANCHOR.getTime() + offset;
        const fire = nextRecurringFire(ANCHOR, n, new Date(after)).getTime();
        const k = (fire - ANCHOR.getTime()) / period;
        const first = Number.isInteger(k) && k >= 1 && fire > after && (k === 1 || fire - period <= after);
        if (!first) wrong.push(`N=${n} after=${new Date(after).toISOString()} -> ${new Date(fire).toISOString()}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
