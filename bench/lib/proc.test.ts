import { cpuPercentOfCore, parseCpuTicks, parseStatusBytes, parseRedisInfo, parseVmRssBytes, perItem } from './proc.js';

describe('parseCpuTicks', () => {
  it('adds utime and stime (fields 14 and 15)', () => {
    const stat = '4242 (node) S 1 4242 4242 0 -1 4194560 1000 0 0 0 150 30 0 0 20 0 11 0 100 1000000 5000 18446744073709551615';
    expect(parseCpuTicks(stat)).toBe(180);
  });

  it('counts fields after a command name holding spaces and parentheses', () => {
    const stat = '77 (my (odd) name) R 1 77 77 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 5 0 0';
    expect(parseCpuTicks(stat)).toBe(10);
  });

  it('refuses text that is not a stat line', () => {
    expect(() => parseCpuTicks('garbage')).toThrow();
  });
});

describe('parseVmRssBytes', () => {
  it('reads VmRSS in bytes', () => {
    expect(parseVmRssBytes('Name:\tnode\nVmPeak:\t  999 kB\nVmRSS:\t  123456 kB\nThreads:\t11\n')).toBe(123456 * 1024);
  });

  it('is null when the line is missing (a process that has exited)', () => {
    expect(parseVmRssBytes('Name:\tnode\n')).toBeNull();
  });
});

describe('parseStatusBytes', () => {
  it('reads RssAnon and RssFile in bytes', () => {
    const status = 'Name:\tnode\nVmRSS:\t   93000 kB\nRssAnon:\t   50000 kB\nRssFile:\t   43000 kB\n';
    expect(parseStatusBytes(status, 'RssAnon')).toBe(50000 * 1024);
    expect(parseStatusBytes(status, 'RssFile')).toBe(43000 * 1024);
  });

  it('is null when the line is missing', () => {
    expect(parseStatusBytes('Name:\tnode\n', 'RssAnon')).toBeNull();
  });
});

describe('cpuPercentOfCore', () => {
  it('is 100 for one core busy for the whole window', () => {
    expect(cpuPercentOfCore(500, 100, 5000)).toBe(100);
  });

  it('is 2 for 10 ticks over 5 s', () => {
    expect(cpuPercentOfCore(10, 100, 5000)).toBeCloseTo(2);
  });

  it('is null for an empty window', () => {
    expect(cpuPercentOfCore(10, 100, 0)).toBeNull();
  });
});

describe('parseRedisInfo', () => {
  it('reads fields and skips section headers', () => {
    const info = parseRedisInfo('# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\n');
    expect(info.used_memory).toBe('1048576');
    expect(info['# Memory']).toBeUndefined();
  });
});

describe('perItem', () => {
  it('divides the growth by the number of items', () => {
    expect(perItem(1000, 3000, 1000)).toBe(2);
  });

  it('is null for no items', () => {
    expect(perItem(1000, 3000, 0)).toBeNull();
  });
});
