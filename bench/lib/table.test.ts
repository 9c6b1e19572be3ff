import { TARGETS } from './params.js';
import { formatMarkdownTable, formatTable } from './table.js';
import { judge } from './verdict.js';

const rows = [
  judge({ scenario: 'throughput', name: 'service, 1 executor', value: 1234.4, unit: 'exec/s', target: TARGETS.throughputPerSecond }),
  judge({ scenario: 'throughput', name: 'service, 2 executors', value: 1800, unit: 'exec/s', target: TARGETS.throughputPerSecond, problems: ['only 19,000 of 20,000 completed'] }),
  judge({ scenario: 'fire-lag', name: 'misses', value: null, unit: '', target: TARGETS.zero }),
];

describe('formatTable', () => {
  const text = formatTable(rows);

  it('prints one line per figure under a header', () => {
    const lines = text.split('\n');
    expect(lines).toHaveLength(2 + rows.length);
    expect(lines[0]).toMatch(/^Scenario\s+Measure\s+Value\s+Target\s+Verdict\s+Note$/);
  });

  it('prints the value and the target side by side', () => {
    expect(text).toMatch(/1,234 exec\/s\s+>= 1,000 exec\/s\s+PASS/);
  });

  it('prints no number for an invalid figure, and the reason', () => {
    const line = text.split('\n').find((l) => l.includes('2 executors')) as string;
    expect(line).not.toMatch(/1,800/);
    expect(line).toMatch(/invalid.*INVALID.*only 19,000 of 20,000 completed/);
  });

  it('prints an unmeasured figure as n/a with NO DATA', () => {
    expect(text).toMatch(/misses\s+n\/a\s+<= 0\s+NO DATA/);
  });
});

describe('formatMarkdownTable', () => {
  it('makes a Markdown table with the same cells', () => {
    const md = formatMarkdownTable(rows).split('\n');
    expect(md[0]).toBe('| Scenario | Measure | Value | Target | Verdict | Note |');
    expect(md[1]).toBe('|---|---|---:|---|---|---|');
    expect(md[2]).toBe('| throughput | service, 1 executor | 1,234 exec/s | >= 1,000 exec/s | PASS |  |');
  });
});
