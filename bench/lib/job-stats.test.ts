import { countMismatches, mean } from './job-stats.js';

describe('countMismatches', () => {
  it('passes answers equal to the executions', () => {
    expect(countMismatches([{ label: 'job 1, 30d', api: { executions: 10, failed: 1 }, direct: { executions: 10, failed: 1 } }])).toEqual([]);
  });

  it('names every answer whose executions or failures differ', () => {
    const problems = countMismatches([
      { label: 'job 1, 24h', api: { executions: 10, failed: 1 }, direct: { executions: 11, failed: 1 } },
      { label: 'job 2, 7d', api: { executions: 5, failed: 0 }, direct: { executions: 5, failed: 0 } },
      { label: 'job 3, 30d', api: { executions: 5, failed: 2 }, direct: { executions: 5, failed: 1 } },
    ]);
    expect(problems).toEqual([
      'job 1, 24h: the API counted 10 executions (1 failed), the executions table 11 (1 failed)',
      'job 3, 30d: the API counted 5 executions (2 failed), the executions table 5 (1 failed)',
    ]);
  });
});

describe('mean', () => {
  it('averages, and has none for an empty list', () => {
    expect(mean([1, 2, 6])).toBe(3);
    expect(mean([])).toBeNull();
  });
});
