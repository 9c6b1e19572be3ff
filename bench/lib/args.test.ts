import { parseArgs, SCENARIOS } from './args.js';

describe('parseArgs', () => {
  it('runs every scenario at full size by default', () => {
    expect(parseArgs([])).toEqual({ scenarios: [...SCENARIOS], quick: false, help: false, serviceEnv: {}, profile: false });
  });

  it('runs the named scenarios in the documented order', () => {
    expect(parseArgs(['api', 'throughput', '--quick'])).toMatchObject({ scenarios: ['throughput', 'api'], quick: true });
    expect(parseArgs(['job-stats', 'scaling']).scenarios).toEqual(['scaling', 'job-stats']);
  });

  it('turns profiling on with --profile', () => {
    expect(parseArgs(['throughput', '--profile']).profile).toBe(true);
  });

  it('collects --set pairs for the service', () => {
    expect(parseArgs(['--set', 'EXECUTOR_CONCURRENCY=100', '--set=SCHEDULER_TICK_MS=50']).serviceEnv).toEqual({
      EXECUTOR_CONCURRENCY: '100',
      SCHEDULER_TICK_MS: '50',
    });
  });

  it('refuses an unknown scenario or option instead of running nothing', () => {
    expect(() => parseArgs(['througput'])).toThrow(/unknown scenario/);
    expect(() => parseArgs(['--fast'])).toThrow(/unknown option/);
    expect(() => parseArgs(['--set', 'nonsense'])).toThrow(/KEY=VALUE/);
  });
});
