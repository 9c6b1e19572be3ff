// The arithmetic of the scaling scenario: how much each size adds, where its fires fall, and the
// growth verdicts ("nothing grows worse than linearly") between the smallest and largest size.
import { derived, type Figure, type Target } from './verdict.js';

/** How a latency may grow from the smallest size to the largest: factor x the smallest + slackMs. */
export interface LatencyGrowth {
  factor: number;
  slackMs: number;
}

export interface SizeStep {
  /** Active schedules once this step is seeded. */
  size: number;
  /** Schedules added due 10 minutes to 23 hours ahead, so they do not fire during the step. */
  ahead: number;
  /** Schedules added due inside the step's measurement window. */
  firing: number;
}

/**
 * What each size adds to the one before: `firing` schedules due inside its window (the same
 * number at every size, so the scheduler's work per window stays the same) and the rest far ahead.
 */
export function schedulePlan(sizes: readonly number[], firing: number): SizeStep[] {
  if (sizes.length < 2) throw new Error('the scaling scenario needs at least two sizes');
  if (!(Number.isInteger(firing) && firing >= 0)) throw new Error(`firing must be a whole number, got ${firing}`);
  let before = 0;
  return sizes.map((size) => {
    if (!(Number.isInteger(size) && size - before >= firing && size > before)) {
      throw new Error(`sizes must grow by at least ${firing} each (the schedules firing per window), got ${sizes.join(', ')}`);
    }
    const step = { size, ahead: size - before - firing, firing };
    before = size;
    return step;
  });
}

/** `count` moments spread evenly over [startMs, startMs + windowMs), each in the middle of its share, in whole ms. */
export function slotsOver(startMs: number, windowMs: number, count: number): number[] {
  return Array.from({ length: count }, (_, k) => startMs + Math.floor(((k + 0.5) * windowMs) / count));
}

/**
 * Per-unit cost at the largest size over the per-unit cost at the smallest: 1 means the cost grows
 * exactly with the count, below 1 slower, above 1 faster (worse than linear). Null when the
 * smallest size cost nothing measurable: no ratio can be taken from zero.
 */
export function perUnitGrowth(smallest: { size: number; cost: number }, largest: { size: number; cost: number }): number | null {
  if (!(smallest.size > 0 && largest.size > 0 && smallest.cost > 0) || !Number.isFinite(largest.cost)) return null;
  return largest.cost / largest.size / (smallest.cost / smallest.size);
}

/** The bound a latency at the largest size is held to, from the one measured at the smallest. */
export function latencyBound(smallestMs: number, growth: LatencyGrowth): Target {
  return { op: '<=', value: Math.round(smallestMs * growth.factor + growth.slackMs) };
}

/**
 * The largest size's latency, judged against the bound the smallest size's sets. Invalid when
 * either input is; no data when either is missing.
 */
export function latencyGrowthFigure(base: Omit<Figure, 'value' | 'problems' | 'target' | 'unit'>, smallest: Figure, largest: Figure, growth: LatencyGrowth): Figure {
  const figure = derived({ ...base, unit: 'ms' }, [smallest, largest], (_small, large) => large);
  if (figure.value !== null && smallest.value !== null) figure.target = latencyBound(smallest.value, growth);
  return figure;
}

/** Load averages over 1, 5 and 15 minutes as `uptime` prints them. */
export function formatLoadAverage(loadavg: readonly number[]): string {
  return loadavg.map((l) => l.toFixed(2)).join(', ');
}
