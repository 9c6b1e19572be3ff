import { TARGETS } from './params.js';
import { derived, formatNumber, formatValue, judge, tally, type Figure } from './verdict.js';

const fig = (value: number | null, extra: Partial<Figure> = {}): Figure => ({
  scenario: 'fire-lag',
  name: 'p99',
  value,
  unit: 'ms',
  target: TARGETS.instantP99Ms,
  ...extra,
});

describe('judge', () => {
  it('passes a figure inside its target', () => {
    expect(judge(fig(1999)).verdict).toBe('PASS');
  });

  it('fails a figure outside its target, saying why', () => {
    const j = judge(fig(2000));
    expect(j.verdict).toBe('FAIL');
    expect(j.reason).toMatch(/2,000 is not < 2,000 ms/);
  });

  it('marks a figure with no value as missing its target, never as passing', () => {
    expect(judge(fig(null)).verdict).toBe('NO DATA');
    expect(judge(fig(Number.NaN)).verdict).toBe('NO DATA');
  });

  it('marks a zero-misses figure with no value as missing, not as 0 misses', () => {
    expect(judge(fig(null, { target: TARGETS.zero, unit: '' })).verdict).toBe('NO DATA');
  });

  it('marks a figure with problems INVALID even when its value would pass', () => {
    const j = judge(fig(5, { problems: ['only 10 of 20 completed'] }));
    expect(j.verdict).toBe('INVALID');
    expect(formatValue(j)).toBe('invalid');
  });

  it('fails a figure measured without the condition of its target, however good its value', () => {
    const j = judge(fig(1, { unmet: 'reached 300 req/s of the 500 asked' }));
    expect(j.verdict).toBe('FAIL');
    expect(j.reason).toBe('reached 300 req/s of the 500 asked');
  });

  it('fails misses above zero', () => {
    expect(judge(fig(1, { target: TARGETS.zero, unit: '' })).verdict).toBe('FAIL');
    expect(judge(fig(0, { target: TARGETS.zero, unit: '' })).verdict).toBe('PASS');
  });

  it('reports a figure without a target as INFO', () => {
    expect(judge(fig(3, { target: undefined })).verdict).toBe('INFO');
  });
});

describe('derived', () => {
  const base = { scenario: 'throughput', name: 'ratio', unit: 'x', target: TARGETS.ratioToCeiling };
  const service: Figure = { scenario: 'throughput', name: 'service', value: 700, unit: 'exec/s' };
  const ceiling: Figure = { scenario: 'throughput', name: 'ceiling', value: 1000, unit: 'exec/s' };

  it('computes from valid inputs', () => {
    expect(derived(base, [service, ceiling], (s, c) => s / c).value).toBe(0.7);
  });

  it('is invalid when an input is invalid', () => {
    const bad = { ...ceiling, problems: ['only 5 of 10 completed'] };
    const f = derived(base, [service, bad], (s, c) => s / c);
    expect(judge(f).verdict).toBe('INVALID');
  });

  it('is missing when an input was not measured', () => {
    const f = derived(base, [service, { ...ceiling, value: null }], (s, c) => s / c);
    expect(judge(f).verdict).toBe('NO DATA');
  });

  it('is missing when the computation divides by zero', () => {
    const f = derived(base, [service, { ...ceiling, value: 0 }], (s, c) => s / c);
    expect(judge(f).verdict).toBe('NO DATA');
  });
});

describe('formatting and tally', () => {
  it('formats numbers by magnitude', () => {
    expect(formatNumber(1234.5)).toBe('1,235');
    expect(formatNumber(12.34)).toBe('12.3');
    expect(formatNumber(0.612)).toBe('0.61');
    expect(formatNumber(0)).toBe('0');
  });

  it('counts verdicts', () => {
    const t = tally([judge(fig(1)), judge(fig(3000)), judge(fig(null))]);
    expect(t).toMatchObject({ PASS: 1, FAIL: 1, 'NO DATA': 1 });
  });
});
