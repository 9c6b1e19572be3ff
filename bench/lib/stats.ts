// Order statistics of a measurement. Pure: no I/O, so the tests beside it can pin the numbers.

export interface Summary {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

function checked(values: readonly number[]): number[] {
  for (const v of values) {
    // A NaN here means a join or a parse went wrong upstream; sorting it would silently move it.
    if (!Number.isFinite(v)) throw new Error(`not a finite measurement: ${v}`);
  }
  return [...values].sort((a, b) => a - b);
}

/**
 * Nearest-rank percentile: the smallest value with at least p% of the values at or below it.
 * Never interpolates, so every reported percentile is a value that was actually measured.
 * Null for no values: an empty run has no percentile, and must not read as 0 ms.
 */
export function percentile(values: readonly number[], p: number): number | null {
  if (!(p > 0 && p <= 100)) throw new Error(`percentile must be in (0, 100], got ${p}`);
  if (values.length === 0) return null;
  return percentileOfSorted(checked(values), p);
}

function percentileOfSorted(sorted: readonly number[], p: number): number {
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.max(1, rank) - 1];
}

/** Count, min, mean, p50, p95, p99 and max; null when there is nothing to summarise. */
export function summarize(values: readonly number[]): Summary | null {
  if (values.length === 0) return null;
  const sorted = checked(values);
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    min: sorted[0],
    mean: sum / sorted.length,
    p50: percentileOfSorted(sorted, 50),
    p95: percentileOfSorted(sorted, 95),
    p99: percentileOfSorted(sorted, 99),
    max: sorted[sorted.length - 1],
  };
}
