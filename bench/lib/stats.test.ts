import { percentile, summarize } from './stats.js';

describe('percentile', () => {
  const oneToHundred = Array.from({ length: 100 }, (_, i) => i + 1);

  it('gives the nearest-rank value on 1..100', () => {
    expect(percentile(oneToHundred, 50)).toBe(50);
    expect(percentile(oneToHundred, 95)).toBe(95);
    expect(percentile(oneToHundred, 99)).toBe(99);
    expect(percentile(oneToHundred, 100)).toBe(100);
  });

  it('does not depend on the order of the input', () => {
    const shuffled = [...oneToHundred].reverse();
    expect(percentile(shuffled, 99)).toBe(99);
  });

  it('lets one slow outlier in ten show at p95 and p99, not at p50', () => {
    const values = [10, 10, 10, 10, 10, 10, 10, 10, 10, 900];
    expect(percentile(values, 50)).toBe(10);
    expect(percentile(values, 95)).toBe(900);
    expect(percentile(values, 99)).toBe(900);
  });

  it('returns a measured value, never an interpolation', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([7], 99)).toBe(7);
  });

  it('is null for no values rather than 0', () => {
    expect(percentile([], 99)).toBeNull();
  });

  it('refuses NaN in the data', () => {
    expect(() => percentile([1, Number.NaN, 3], 50)).toThrow(/finite/);
  });

  it('refuses a percentile outside (0, 100]', () => {
    expect(() => percentile([1], 0)).toThrow();
    expect(() => percentile([1], 101)).toThrow();
  });
});

describe('summarize', () => {
  it('summarises known data', () => {
    const s = summarize([5, 1, 4, 2, 3]);
    expect(s).toEqual({ count: 5, min: 1, mean: 3, p50: 3, p95: 5, p99: 5, max: 5 });
  });

  it('is null for an empty run', () => {
    expect(summarize([])).toBeNull();
  });

  it('does not change its input', () => {
    const input = [3, 1, 2];
    summarize(input);
    expect(input).toEqual([3, 1, 2]);
  });
});
