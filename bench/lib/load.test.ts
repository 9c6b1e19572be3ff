import { summarizeLoad, type LoadResult } from './load.js';

const ok: LoadResult = {
  requests: { average: 500, total: 5000 },
  latency: { p50: 3, p99: 12 },
  duration: 10,
  errors: 0,
  timeouts: 0,
  non2xx: 0,
  statusCodeStats: { '201': { count: 5000 } },
};

describe('summarizeLoad', () => {
  it('reports requests per second over the run and the latency percentiles', () => {
    expect(summarizeLoad(ok, { requestedRate: 500 })).toEqual({ requestsPerSecond: 500, p50: 3, p99: 12, total: 5000, problems: [], shortfall: null });
  });

  it('refuses a run answered with errors, however fast', () => {
    const r = summarizeLoad({ ...ok, non2xx: 5000, statusCodeStats: { '401': { count: 5000 } } });
    expect(r.problems.join()).toMatch(/5000 answers were not 2xx \(5000x401\)/);
  });

  it('refuses a run with connection errors or timeouts', () => {
    expect(summarizeLoad({ ...ok, errors: 3 }).problems).toContain('3 connection errors');
    expect(summarizeLoad({ ...ok, timeouts: 2 }).problems).toContain('2 timeouts');
  });

  it('reports a run that fell short of the rate its latency is quoted at', () => {
    const r = summarizeLoad({ ...ok, requests: { average: 300, total: 3000 } }, { requestedRate: 500 });
    expect(r.shortfall).toBe('reached 300 req/s of the 500 asked');
    expect(r.problems).toEqual([]);
  });

  it('accepts a run within 10% of the asked rate', () => {
    expect(summarizeLoad({ ...ok, requests: { average: 460, total: 4600 } }, { requestedRate: 500 }).shortfall).toBeNull();
  });

  it('gives no latency for a run with no answers', () => {
    const r = summarizeLoad({ ...ok, requests: { average: 0, total: 0 }, latency: { p50: 0, p99: 0 } });
    expect(r.p99).toBeNull();
    expect(r.problems).toContain('no request was answered');
  });
});
