import { classDuration, durationClass, quantile, summarize, windowBuckets, type Histogram, type RollupRow } from './job-stats.js';

// The statistics' arithmetic (docs/EXECUTIONS.md, "Statistics"): duration classes, percentiles
// of counts per class, and the window's buckets.

const histogramOf = (durations: number[]): Histogram => {
  const h: Histogram = new Map();
  for (const d of durations) h.set(durationClass(d), (h.get(durationClass(d)) ?? 0) + 1);
  return h;
};

describe('duration classes', () => {
  it('grow by 20%: every duration is within 10% of its class duration', () => {
    for (const ms of [2, 3, 7, 10, 99, 100, 101, 412, 1_000, 59_999, 86_400_000]) {
      const back = classDuration(durationClass(ms));
      expect(Math.abs(back - ms) / ms).toBeLessThanOrEqual(0.1 + 0.5 / ms);
    }
  });

  it('puts 0 and 1 ms in class 0, and caps the longest', () => {
    expect(durationClass(0)).toBe(0);
    expect(durationClass(1)).toBe(0);
    expect(classDuration(0)).toBe(1);
    expect(durationClass(Number.MAX_SAFE_INTEGER)).toBe(127);
  });

  it('never orders two durations the other way round', () => {
    let last = 0;
    for (let ms = 0; ms < 5_000; ms += 7) {
      expect(durationClass(ms)).toBeGreaterThanOrEqual(last);
      last = durationClass(ms);
    }
  });
});

describe('quantile', () => {
  it('is null with no executions', () => {
    expect(quantile(new Map(), 0.5)).toBeNull();
  });

  it('takes the nearest rank: with 100 durations 1..100, p50 is about 50, p95 about 95, p99 about 99', () => {
    const h = histogramOf(Array.from({ length: 100 }, (_, i) => i + 1));
    for (const [q, exact] of [[0.5, 50], [0.95, 95], [0.99, 99]] as const) {
      expect(Math.abs(quantile(h, q)! - exact) / exact).toBeLessThanOrEqual(0.1);
    }
  });

  it('answers the one duration for every quantile of a single execution', () => {
    const h = histogramOf([412]);
    expect(quantile(h, 0.5)).toBe(quantile(h, 0.99));
    expect(quantile(h, 0.01)).toBe(classDuration(durationClass(412)));
  });

  it('sees a slow tail: 94 fast and 6 slow make p95 slow and p50 fast', () => {
    const h = histogramOf([...Array(94).fill(100), ...Array(6).fill(5_000)]);
    expect(quantile(h, 0.5)).toBe(classDuration(durationClass(100)));
    expect(quantile(h, 0.95)).toBe(classDuration(durationClass(5_000)));
  });
});

describe('windows and buckets', () => {
  const now = new Date('2026-11-26T10:37:12Z');

  it('has 24 hourly buckets ending with the current hour, and 7 or 30 daily ones ending today (UTC)', () => {
    const day = windowBuckets('24h', now);
    expect(day.starts).toHaveLength(24);
    expect(day.starts[23].toISOString()).toBe('2026-11-26T10:00:00.000Z');
    expect(day.starts[0].toISOString()).toBe('2026-11-25T11:00:00.000Z');
    const week = windowBuckets('7d', now);
    expect(week.starts.map((d) => d.toISOString().slice(0, 10))).toEqual(['2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26']);
    expect(windowBuckets('30d', now).starts).toHaveLength(30);
  });

  it('adds the rows up per bucket and in all, and leaves out rows outside the window', () => {
    const rows: RollupRow[] = [
      { hour: new Date('2026-11-26T10:00:00Z'), durationClass: durationClass(100), executions: 3, failed: 1 },
      { hour: new Date('2026-11-26T10:00:00Z'), durationClass: durationClass(1_000), executions: 1, failed: 1 },
      { hour: new Date('2026-11-26T08:00:00Z'), durationClass: durationClass(100), executions: 4, failed: 0 },
      // Before the window's first hour.
      { hour: new Date('2026-11-25T10:00:00Z'), durationClass: durationClass(100), executions: 50, failed: 50 },
    ];
    const stats = summarize('24h', now, rows);
    expect(stats).toMatchObject({ window: '24h', executions: 8, succeeded: 6, failed: 2, success_rate: 0.75 });
    expect(stats.duration_ms.p50).toBe(classDuration(durationClass(100)));
    expect(stats.duration_ms.p99).toBe(classDuration(durationClass(1_000)));
    expect(stats.buckets).toHaveLength(24);
    expect(stats.buckets[23]).toEqual({ start: '2026-11-26T10:00:00.000Z', executions: 4, failed: 2, p50_ms: classDuration(durationClass(100)), p95_ms: classDuration(durationClass(1_000)) });
    expect(stats.buckets[21]).toMatchObject({ start: '2026-11-26T08:00:00.000Z', executions: 4, failed: 0 });
    expect(stats.buckets[22]).toEqual({ start: '2026-11-26T09:00:00.000Z', executions: 0, failed: 0, p50_ms: null, p95_ms: null });
  });

  it('adds a day of hours into its daily bucket', () => {
    const rows: RollupRow[] = [
      { hour: new Date('2026-11-26T00:00:00Z'), durationClass: 10, executions: 2, failed: 0 },
      { hour: new Date('2026-11-26T23:00:00Z'), durationClass: 10, executions: 1, failed: 1 },
      { hour: new Date('2026-11-25T23:00:00Z'), durationClass: 10, executions: 5, failed: 0 },
    ];
    const stats = summarize('7d', now, rows);
    expect(stats.buckets[6]).toMatchObject({ start: '2026-11-26T00:00:00.000Z', executions: 3, failed: 1 });
    expect(stats.buckets[5]).toMatchObject({ start: '2026-11-25T00:00:00.000Z', executions: 5, failed: 0 });
  });

  it('has null rates and percentiles with no executions', () => {
    expect(summarize('30d', now, [])).toMatchObject({ executions: 0, succeeded: 0, failed: 0, success_rate: null, duration_ms: { p50: null, p95: null, p99: null } });
  });
});
