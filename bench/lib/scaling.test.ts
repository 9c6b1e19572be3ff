import { formatLoadAverage, latencyBound, latencyGrowthFigure, perUnitGrowth, schedulePlan, slotsOver } from './scaling.js';
import { judge, type Figure } from './verdict.js';

describe('schedulePlan', () => {
  it('adds the same number firing at every size and the rest far ahead', () => {
    expect(schedulePlan([1_000, 10_000, 100_000], 500)).toEqual([
      { size: 1_000, ahead: 500, firing: 500 },
      { size: 10_000, ahead: 8_500, firing: 500 },
      { size: 100_000, ahead: 89_500, firing: 500 },
    ]);
  });

  it('refuses sizes that do not grow by the firing count, or a single size', () => {
    expect(() => schedulePlan([1_000, 1_200], 500)).toThrow(/grow by at least 500/);
    expect(() => schedulePlan([400, 5_000], 500)).toThrow(/grow by at least 500/);
    expect(() => schedulePlan([5_000, 1_000], 0)).toThrow(/grow/);
    expect(() => schedulePlan([1_000], 10)).toThrow(/two sizes/);
  });
});

describe('slotsOver', () => {
  it('spreads the slots evenly, each in the middle of its share of the window', () => {
    expect(slotsOver(10_000, 1_000, 4)).toEqual([10_125, 10_375, 10_625, 10_875]);
  });

  it('keeps every slot inside the window in whole ms', () => {
    const slots = slotsOver(0, 20_000, 3);
    expect(slots).toEqual([3_333, 10_000, 16_666]);
    expect(slots.every((s) => Number.isInteger(s) && s >= 0 && s < 20_000)).toBe(true);
  });
});

describe('perUnitGrowth', () => {
  it('is 1 when the cost grows exactly with the count', () => {
    expect(perUnitGrowth({ size: 1_000, cost: 660_000 }, { size: 100_000, cost: 66_000_000 })).toBe(1);
  });

  it('is below 1 for a fixed cost and above 1 for one worse than linear', () => {
    expect(perUnitGrowth({ size: 1_000, cost: 2 }, { size: 100_000, cost: 2 })).toBeCloseTo(0.01, 10);
    // n log n from 1,000 to 100,000: log grows 5/3.
    expect(perUnitGrowth({ size: 1_000, cost: 1_000 * 3 }, { size: 100_000, cost: 100_000 * 5 })).toBeCloseTo(5 / 3, 10);
  });

  it('gives no ratio when the smallest size cost nothing measurable', () => {
    expect(perUnitGrowth({ size: 1_000, cost: 0 }, { size: 100_000, cost: 1 })).toBeNull();
    expect(perUnitGrowth({ size: 0, cost: 1 }, { size: 100_000, cost: 1 })).toBeNull();
  });
});

describe('latency growth', () => {
  const growth = { factor: 2, slackMs: 50 };
  const fig = (value: number | null, problems: string[] = []): Figure => ({ scenario: 'scaling', name: 'lag p99', value, unit: 'ms', problems });

  it('bounds the largest size by factor x the smallest + slack', () => {
    expect(latencyBound(40, growth)).toEqual({ op: '<=', value: 130 });
  });

  it('passes a flat latency and fails one that grew past the bound', () => {
    expect(judge(latencyGrowthFigure({ scenario: 'scaling', name: 'growth' }, fig(40), fig(60), growth)).verdict).toBe('PASS');
    const failed = judge(latencyGrowthFigure({ scenario: 'scaling', name: 'growth' }, fig(40), fig(131), growth));
    expect(failed.verdict).toBe('FAIL');
    expect(failed.reason).toMatch(/131 is not <= 130 ms/);
  });

  it('is invalid when either size was, and missing when either was not measured', () => {
    expect(judge(latencyGrowthFigure({ scenario: 'scaling', name: 'growth' }, fig(40, ['3 of 50 slots missed']), fig(60), growth)).verdict).toBe('INVALID');
    expect(judge(latencyGrowthFigure({ scenario: 'scaling', name: 'growth' }, fig(null), fig(60), growth)).verdict).toBe('NO DATA');
    expect(judge(latencyGrowthFigure({ scenario: 'scaling', name: 'growth' }, fig(40), fig(null), growth)).verdict).toBe('NO DATA');
  });
});

describe('formatLoadAverage', () => {
  it('prints the three averages as uptime does', () => {
    expect(formatLoadAverage([7.4, 8.486, 9.18])).toBe('7.40, 8.49, 9.18');
  });
});
