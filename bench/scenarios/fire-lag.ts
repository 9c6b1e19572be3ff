// fire-lag: how close to scheduled_for the target receives each fire. Scheduled jobs are seeded
// with next_run_at in the future and left to the service's scheduler; per slot, lag = first
// arrival at the target minus scheduled_for (from Postgres, joined by execution id). Slots not
// received within the grace period are misses; repeated ids and repeated (job, scheduled_for)
// executions are duplicates.
import { ensureService, serviceSetting, sleep, type BenchContext } from '../harness/context.js';
import { jobShape, resetServiceData, seedJobs, workspaceId } from '../harness/seed.js';
import { analyseFires, type FireReport } from '../lib/lag.js';
import { TARGETS } from '../lib/params.js';
import type { Figure, Target } from '../lib/verdict.js';
import type { ScenarioResult } from './types.js';

const SCENARIO = 'fire-lag';

interface Shape {
  label: string;
  count: number;
  /** Slot i (0-based) is due at start + floor(i * spanMs / count). */
  spanMs: number;
  targets: { p50?: Target; p95?: Target; p99?: Target; max?: Target };
}

async function runShape(ctx: BenchContext, shape: Shape): Promise<{ report: FireReport; details: Record<string, unknown> }> {
  const service = await ensureService(ctx);
  await resetServiceData(ctx.pool);
  await ctx.target.reset();
  const ws = await workspaceId(ctx.pool);
  // Far enough ahead that the slots enter the scheduler's lookahead only after seeding is done.
  const lookahead = serviceSetting(ctx, 'SCHEDULER_LOOKAHEAD_MS', 5_000);
  const tick = serviceSetting(ctx, 'SCHEDULER_TICK_MS', 500);
  const start = Math.ceil((Date.now() + lookahead + tick + 1_500 + shape.count / 10) / 1000) * 1000;
  ctx.log(`${SCENARIO}: ${shape.label}: ${shape.count} jobs from ${new Date(start).toISOString()} over ${shape.spanMs} ms`);
  const seeded = await seedJobs(ctx.pool, {
    workspaceId: ws,
    count: shape.count,
    namePrefix: `lag-${shape.label}-`,
    kind: 'scheduled',
    state: 'active',
    shape: jobShape(ctx.target.url),
    nextRunAtSql: `to_timestamp(($8::float8 + floor((i - 1) * $9::float8 / $10::float8)) / 1000.0)`,
    scheduleSql: `jsonb_build_object('run_at', to_char(s.t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`,
    params: [start, shape.spanMs, shape.count],
    returning: true,
  });
  if (Date.now() > start - lookahead) ctx.log(`${SCENARIO}: warning: seeding ended inside the lookahead window`);
  const expected = seeded.map((j) => ({ jobId: j.id, scheduledFor: j.nextRunAt as number }));
  const lastSlot = Math.max(...expected.map((e) => e.scheduledFor));
  const deadline = lastSlot + ctx.params.fireLag.graceMs;
  // Wait for every slot, or the deadline; then a short settle so late repeats are seen too.
  for (;;) {
    service.assertAlive();
    const stats = await ctx.target.stats();
    if (stats.distinct >= shape.count && Date.now() > lastSlot) break;
    if (Date.now() > deadline) break;
    await sleep(250);
  }
  await sleep(1_000);
  const arrivals = await ctx.target.arrivals();
  const rows = await ctx.pool.query<{ id: string; job_id: string; at: number; created: number; started: number | null }>(
    `SELECT id, job_id, (extract(epoch FROM scheduled_for) * 1000)::float8 AS at, (extract(epoch FROM created_at) * 1000)::float8 AS created,
            (extract(epoch FROM started_at) * 1000)::float8 AS started FROM executions`,
  );
  const executions = rows.rows.map((r) => ({ id: r.id, jobId: r.job_id, scheduledFor: Math.round(r.at) }));
  const report = analyseFires({ expected, executions, arrivals, deadline });
  const { lags, ...rest } = report;
  return {
    report,
    details: {
      ...rest,
      slowest: slowest(rows.rows, arrivals),
      start: new Date(start).toISOString(),
      lastSlot: new Date(lastSlot).toISOString(),
      executionRows: executions.length,
      arrivals: arrivals.length,
    },
  };
}

/** Where the time of the latest fires went: created how long ahead, claimed how late, received how late. */
function slowest(rows: { id: string; at: number; created: number; started: number | null }[], arrivals: { executionId: string; at: number }[]) {
  const firstArrival = new Map<string, number>();
  for (const a of arrivals) if (!firstArrival.has(a.executionId)) firstArrival.set(a.executionId, a.at);
  return rows
    .filter((r) => firstArrival.has(r.id))
    .map((r) => ({
      id: r.id,
      lagMs: firstArrival.get(r.id)! - Math.round(r.at),
      createdAheadMs: Math.round(r.at - r.created),
      claimedLateMs: r.started === null ? null : Math.round(r.started - r.at),
    }))
    .sort((a, b) => b.lagMs - a.lagMs)
    .slice(0, 5);
}

function figuresOf(shape: Shape, report: FireReport): Figure[] {
  const s = report.summary;
  const name = (what: string) => `${shape.label} (${shape.count.toLocaleString('en-US')}) ${what}`;
  // Percentiles of a run with misses describe only the slots that arrived: flagged, not printed as good.
  const problems = report.misses > 0 ? [`${report.misses} of ${report.expected} slots missed`] : [];
  const lag = (what: 'p50' | 'p95' | 'p99' | 'max'): Figure => ({
    scenario: SCENARIO,
    name: name(`lag ${what}`),
    value: s ? s[what] : null,
    unit: 'ms',
    target: shape.targets[what],
    problems,
  });
  return [
    lag('p50'),
    lag('p95'),
    lag('p99'),
    lag('max'),
    { scenario: SCENARIO, name: name('misses'), value: report.misses, unit: '', target: TARGETS.zero, note: report.missSamples.slice(0, 2).join('; ') || undefined },
    {
      scenario: SCENARIO,
      name: name('duplicates'),
      value: report.duplicates,
      unit: '',
      target: TARGETS.zero,
      note: report.duplicates > 0 ? `${report.duplicateDeliveries} repeated ids, ${report.duplicateFires} repeated slots` : undefined,
    },
  ];
}

export async function fireLag(ctx: BenchContext): Promise<ScenarioResult> {
  const p = ctx.params.fireLag;
  const shapes: Shape[] = [
    { label: 'single', count: p.single, spanMs: p.single * p.singleEveryMs, targets: { p99: TARGETS.singleP99Ms } },
    { label: 'at once', count: p.instant, spanMs: 0, targets: { p50: TARGETS.instantP50Ms, p99: TARGETS.instantP99Ms, max: TARGETS.instantMaxMs } },
    { label: 'spread', count: p.spread, spanMs: p.spreadOverMs, targets: {} },
  ];
  const figures: Figure[] = [];
  const details: Record<string, unknown> = {};
  for (const shape of shapes) {
    const { report, details: d } = await runShape(ctx, shape);
    figures.push(...figuresOf(shape, report));
    details[shape.label] = d;
  }
  return {
    figures,
    parameters: {
      single: { count: p.single, everyMs: p.singleEveryMs },
      atOnce: { count: p.instant },
      spread: { count: p.spread, overMs: p.spreadOverMs },
      graceMs: p.graceMs,
      lookaheadMs: serviceSetting(ctx, 'SCHEDULER_LOOKAHEAD_MS', 5_000),
      tickMs: serviceSetting(ctx, 'SCHEDULER_TICK_MS', 500),
    },
    details,
  };
}
