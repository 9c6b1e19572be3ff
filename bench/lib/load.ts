// Turns an autocannon result into requests/s and latency percentiles, refusing runs whose
// answers were not the expected ones: a fast stream of 401s or 500s is not a fast API.
import type autocannon from 'autocannon';

/** The part of autocannon's result this reads (autocannon.Result is a superset). */
export interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; max?: number; average?: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats?: Record<string, { count: number }>;
}

/** The LoadResult of an autocannon run. */
export function loadResultOf(r: autocannon.Result): LoadResult {
  return {
    requests: { average: r.requests.average, total: r.requests.total },
    latency: { p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max, average: r.latency.average },
    duration: r.duration,
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    statusCodeStats: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, { count: s?.count ?? 0 }])),
  };
}

export interface LoadSummary {
  requestsPerSecond: number | null;
  p50: number | null;
  p99: number | null;
  total: number;
  /** The run cannot be trusted: errors or answers that are not 2xx. */
  problems: string[];
  /** The run was clean but did not reach the rate its latency is quoted at. */
  shortfall: string | null;
}

export function summarizeLoad(result: LoadResult, options: { requestedRate?: number; minShareOfRate?: number } = {}): LoadSummary {
  const problems: string[] = [];
  const total = result.requests?.total ?? 0;
  if (total === 0) problems.push('no request was answered');
  if (result.errors > 0) problems.push(`${result.errors} connection errors`);
  if (result.timeouts > 0) problems.push(`${result.timeouts} timeouts`);
  if (result.non2xx > 0) {
    const codes = Object.entries(result.statusCodeStats ?? {})
      .filter(([code]) => !code.startsWith('2'))
      .map(([code, s]) => `${s.count}x${code}`)
      .join(', ');
    problems.push(`${result.non2xx} answers were not 2xx${codes ? ` (${codes})` : ''}`);
  }
  const rps = total > 0 && result.duration > 0 ? total / result.duration : null;
  let shortfall: string | null = null;
  if (options.requestedRate !== undefined && rps !== null) {
    // A latency "at 500 requests/s" measured at 300 requests/s is not the figure asked for.
    const share = options.minShareOfRate ?? 0.9;
    if (rps < options.requestedRate * share) shortfall = `reached ${Math.round(rps)} req/s of the ${options.requestedRate} asked`;
  }
  return {
    requestsPerSecond: rps,
    p50: total > 0 ? result.latency.p50 : null,
    p99: total > 0 ? result.latency.p99 : null,
    total,
    problems,
    shortfall,
  };
}
