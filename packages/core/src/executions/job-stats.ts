import { STATS_WINDOWS, type JobStats, type StatsBucket, type StatsWindow } from '@cronsvc/contracts';
import Joi from 'joi';
import type { Deps } from '../deps/deps.js';
import { validate } from '../validation/validate.js';

/**
 * A job's statistics (docs/EXECUTIONS.md, "Statistics"), answered from an hourly rollup kept as
 * executions end: one row per job, hour and duration class, `job_stats_hourly`, written by the
 * statement that records the end (so it commits with it). A query reads at most a few thousand
 * small rows, however many executions the job has had.
 *
 * Durations are counted in classes growing by 20%: class c holds durations in (1.2^(c-1), 1.2^c]
 * ms, class 0 everything up to 1 ms. A percentile is the geometric middle of its class, so it is
 * within 10% of the exact value.
 */

const GROWTH = 1.2;
export const DURATION_CLASSES = 128;

/** The duration class of an execution that took `ms` milliseconds. */
export function durationClass(ms: number): number {
  if (!(ms > 1)) return 0;
  return Math.min(DURATION_CLASSES - 1, Math.ceil(Math.log(ms) / Math.log(GROWTH) - 1e-9));
}

/** The duration a class stands for: the geometric middle of its bounds, whole milliseconds. */
export function classDuration(c: number): number {
  if (c <= 0) return 1;
  return Math.round(GROWTH ** (c - 0.5));
}

/** Counts of executions per duration class. */
export type Histogram = Map<number, number>;

/** The q-quantile (0..1) of the durations counted, as the class's duration; null when none are. */
export function quantile(histogram: Histogram, q: number): number | null {
  let total = 0;
  for (const n of histogram.values()) total += n;
  if (total === 0) return null;
  // The smallest class whose running count reaches q of the total (nearest-rank).
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const c of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(c)!;
    if (seen >= rank) return classDuration(c);
  }
  return null;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The window's buckets: 24 hours ending with the current one, or 7 or 30 UTC days ending with today. */
export function windowBuckets(window: StatsWindow, now: Date): { starts: Date[]; sizeMs: number } {
  const sizeMs = window === '24h' ? HOUR_MS : DAY_MS;
  const count = window === '24h' ? 24 : window === '7d' ? 7 : 30;
  const current = Math.floor(now.getTime() / sizeMs) * sizeMs;
  return { starts: Array.from({ length: count }, (_, i) => new Date(current - (count - 1 - i) * sizeMs)), sizeMs };
}

/** One rollup row: executions ended in an hour with one duration class. */
export interface RollupRow {
  hour: Date;
  durationClass: number;
  executions: number;
  failed: number;
}

/** The statistics of a window from its rollup rows (pure: the arithmetic is unit-tested). */
export function summarize(window: StatsWindow, now: Date, rows: readonly RollupRow[]): JobStats {
  const { starts, sizeMs } = windowBuckets(window, now);
  const first = starts[0].getTime();
  const perBucket = starts.map(() => ({ executions: 0, failed: 0, histogram: new Map() as Histogram }));
  const all: Histogram = new Map();
  let executions = 0;
  let failed = 0;
  for (const row of rows) {
    const index = Math.floor((row.hour.getTime() - first) / sizeMs);
    if (index < 0 || index >= starts.length) continue;
    const bucket = perBucket[index];
    bucket.executions += row.executions;
    bucket.failed += row.failed;
    bucket.histogram.set(row.durationClass, (bucket.histogram.get(row.durationClass) ?? 0) + row.executions);
    all.set(row.durationClass, (all.get(row.durationClass) ?? 0) + row.executions);
    executions += row.executions;
    failed += row.failed;
  }
  const buckets: StatsBucket[] = perBucket.map((b, i) => ({
    start: starts[i].toISOString(),
    executions: b.executions,
    failed: b.failed,
    p50_ms: quantile(b.histogram, 0.5),
    p95_ms: quantile(b.histogram, 0.95),
  }));
  return {
    window,
    executions,
    succeeded: executions - failed,
    failed,
    success_rate: executions === 0 ? null : (executions - failed) / executions,
    duration_ms: { p50: quantile(all, 0.5), p95: quantile(all, 0.95), p99: quantile(all, 0.99) },
    buckets,
  };
}

export const querySchema = Joi.object({ window: Joi.string().valid(...STATS_WINDOWS).default('24h') });

/** The rollup rows of a job from `since` on: one index range scan of the rollup's primary key. */
export async function rollupRows(deps: Pick<Deps, 'pool'>, jobId: string, since: Date): Promise<RollupRow[]> {
  const { rows } = await deps.pool.query<{ hour: Date; duration_class: number; executions: number; failed: number }>({
    name: 'job-stats-rows',
    text: 'SELECT hour, duration_class, executions, failed FROM job_stats_hourly WHERE job_id = $1 AND hour >= $2',
    values: [jobId, since],
  });
  return rows.map((r) => ({ hour: r.hour, durationClass: r.duration_class, executions: r.executions, failed: r.failed }));
}

/** GET /v1/jobs/:id/stats for a job already found in the workspace. */
export async function jobStats(deps: Pick<Deps, 'pool' | 'clock'>, jobId: string, query: unknown): Promise<JobStats> {
  const { window } = validate<{ window: StatsWindow }>(querySchema, query);
  const now = deps.clock.now();
  const rows = await rollupRows(deps, jobId, windowBuckets(window, now).starts[0]);
  return summarize(window, now, rows);
}

/**
 * The rollup's upsert, as a CTE for the statement that records executions' ends: `source` is a
 * query with columns job_id, at (timestamptz), failed (boolean) and duration_class (int). Rows of
 * one job, hour and class are added up first (one statement may end many executions of a job), and
 * written in key order, so two statements never wait on each other's rows in opposite orders.
 */
export function rollupWrite(name: string, source: string): string {
  return `${name} AS (
    INSERT INTO job_stats_hourly AS s (job_id, hour, duration_class, executions, failed)
    SELECT r.job_id, date_trunc('hour', r.at, 'UTC'), r.duration_class, count(*)::int, (count(*) FILTER (WHERE r.failed))::int
      FROM (${source}) AS r
     GROUP BY 1, 2, 3
     ORDER BY 1, 2, 3
    ON CONFLICT (job_id, hour, duration_class) DO UPDATE
      SET executions = s.executions + EXCLUDED.executions, failed = s.failed + EXCLUDED.failed)`;
}

/**
 * Rollup hours kept: the 90 days a status page shows (docs/API.md, "Status pages") and one more,
 * whatever EXECUTION_RETENTION_DAYS keeps of the executions themselves.
 */
export const JOB_STATS_KEPT_DAYS = 91;

/**
 * Deletes rollup rows of hours before `olderThan`, in batches by the rollup's hour index, so the
 * rollup holds at most JOB_STATS_KEPT_DAYS of hours per job. Returns how many rows went.
 */
export async function pruneJobStats(deps: Pick<Deps, 'pool'>, options: { olderThan: Date; batchSize?: number }): Promise<number> {
  const batchSize = options.batchSize ?? 1000;
  let total = 0;
  for (;;) {
    const { rowCount } = await deps.pool.query({
      name: 'prune-job-stats',
      text: 'DELETE FROM job_stats_hourly WHERE ctid IN (SELECT ctid FROM job_stats_hourly WHERE hour < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)',
      values: [options.olderThan, batchSize],
    });
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < batchSize) return total;
  }
}
