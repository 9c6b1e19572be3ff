// schedules-footprint: what holding many schedules costs. Active cron and recurring jobs are
// seeded with next_run_at 10 minutes to 23 hours ahead, so none fires during the measurement.
// Redis: bytes under the run's key prefix (MEMORY USAGE of every key) before and after, per
// schedule; INFO used_memory too, though other users of this Redis move it. RSS of each service
// process from /proc/<pid>/status; scheduler CPU over an idle window from /proc/<pid>/stat;
// Postgres bytes per job and per execution from pg_total_relation_size / rows.
import { cpuWindow, ensureService, serviceSetting, sleep, type BenchContext } from '../harness/context.js';
import { ensureHistory } from '../harness/history.js';
import { ledgerBytes } from '../harness/ledger-bytes.js';
import { rssBytes } from '../harness/processes.js';
import { jobShape, resetServiceData, seedDailySchedules, workspaceId } from '../harness/seed.js';
import type { Service } from '../harness/service.js';
import { prefixMemory } from '../harness/stores.js';
import { TARGETS } from '../lib/params.js';
import { parseRedisInfo, perItem } from '../lib/proc.js';
import type { Figure } from '../lib/verdict.js';
import type { ScenarioResult } from './types.js';

const SCENARIO = 'schedules-footprint';
const MiB = 1024 * 1024;
const ISSUE_SIZE = 1_000_000;

interface Snapshot {
  prefixBytes: number;
  prefixKeys: number;
  usedMemory: number;
  rss: Record<string, number | null>;
}

async function snapshot(ctx: BenchContext, service: Service): Promise<Snapshot> {
  const mem = await prefixMemory(ctx.redis, ctx.redisPrefix);
  const info = parseRedisInfo(await ctx.redis.info('memory'));
  return {
    prefixBytes: mem.bytes,
    prefixKeys: mem.keys,
    usedMemory: Number(info.used_memory),
    rss: Object.fromEntries(service.all().map((p) => [p.name, rssBytes(p.pid)])),
  };
}

async function tableBytes(ctx: BenchContext, table: string): Promise<{ bytes: number; rows: number }> {
  const r = await ctx.pool.query<{ bytes: string; rows: number }>(`SELECT pg_total_relation_size($1::regclass)::text AS bytes, (SELECT count(*)::int FROM ${table}) AS rows`, [table]);
  return { bytes: Number(r.rows[0].bytes), rows: r.rows[0].rows };
}

/** Daily schedules, all due later today or tomorrow. */
async function seedSchedules(ctx: BenchContext, count: number, round: number): Promise<void> {
  await seedDailySchedules(ctx.pool, {
    workspaceId: await workspaceId(ctx.pool),
    shape: jobShape(ctx.target.url),
    count,
    namePrefix: `footprint-${round}-`,
    nextRunAtSql: `date_trunc('minute', now() + interval '10 minutes' + (i::float8 / $8::float8) * interval '23 hours')`,
    params: [count],
  });
  await ctx.pool.query('ANALYZE jobs');
}

export async function schedulesFootprint(ctx: BenchContext): Promise<ScenarioResult> {
  const p = ctx.params.footprint;
  const service = await ensureService(ctx);
  await resetServiceData(ctx.pool);
  await ctx.target.reset();
  const figures: Figure[] = [];
  const details: Record<string, unknown> = {};

  await ensureHistory(ctx, p.executions);
  const exe = await tableBytes(ctx, 'executions');
  const att = await tableBytes(ctx, 'attempts');
  figures.push({
    scenario: SCENARIO,
    name: `Postgres bytes per execution (${exe.rows.toLocaleString('en-US')} stored, with its attempt)`,
    value: exe.rows > 0 ? (exe.bytes + att.bytes) / exe.rows : null,
    unit: 'B',
    note: exe.rows > 0 ? `executions ${Math.round(exe.bytes / exe.rows)} B + attempts ${Math.round(att.bytes / exe.rows)} B, tables with indexes and TOAST` : undefined,
  });
  details.executions = { executions: exe, attempts: att };

  // The fire ledger: what a fire adds to its execution row, and what a slot without one weighs.
  const ledger = await ledgerBytes(ctx.pool, await workspaceId(ctx.pool), p.executions);
  const sampled = `average stored row over ${ledger.sampled.toLocaleString('en-US')} executions`;
  const heap = (set: number) => `heap per row, pages included: ${(set - ledger.heapPerRow.withoutColumns).toFixed(1)} B`;
  figures.push(
    {
      scenario: SCENARIO,
      name: 'Fire ledger: bytes an on-time fire adds to its execution',
      value: ledger.columnsNull - ledger.withoutColumns,
      unit: 'B',
      note: `${sampled}; ${heap(ledger.heapPerRow.columnsNull)}`,
    },
    {
      scenario: SCENARIO,
      name: 'Fire ledger: bytes a jittered fire or a catch-up adds to its execution',
      value: ledger.columnsSet - ledger.withoutColumns,
      unit: 'B',
      note: `${sampled}; ${heap(ledger.heapPerRow.columnsSet)}`,
    },
    {
      scenario: SCENARIO,
      name: `Fire ledger: bytes per missed or skipped slot (${ledger.gaps.toLocaleString('en-US')} stored)`,
      value: ledger.gapBytes,
      unit: 'B',
      note: 'fire_gaps with its indexes',
    },
  );
  details.ledger = ledger;

  const lookahead = serviceSetting(ctx, 'SCHEDULER_LOOKAHEAD_MS', 5_000);
  const tick = serviceSetting(ctx, 'SCHEDULER_TICK_MS', 500);
  await sleep(tick * 2);
  const base = await snapshot(ctx, service);
  details.base = base;
  let seeded = 0;
  for (const [round, size] of p.schedules.entries()) {
    ctx.log(`${SCENARIO}: seeding ${(size - seeded).toLocaleString('en-US')} schedules (to ${size.toLocaleString('en-US')})`);
    const started = Date.now();
    await seedSchedules(ctx, size - seeded, round);
    seeded = size;
    const seedMs = Date.now() - started;
    // Long enough for a design that queues fires ahead, or loads schedules, to have done so.
    await sleep(lookahead + tick * 2 + 2_000);
    service.assertAlive();
    const after = await snapshot(ctx, service);
    const closeCpu = cpuWindow(service.all());
    await sleep(p.idleWindowMs);
    const cpu = closeCpu();
    const jobs = await tableBytes(ctx, 'jobs');
    const label = size.toLocaleString('en-US');
    const small = size < ISSUE_SIZE ? `the target is set for ${ISSUE_SIZE.toLocaleString('en-US')} schedules` : undefined;
    figures.push(
      {
        scenario: SCENARIO,
        name: `${label} schedules: Redis bytes per schedule (run's keys)`,
        value: perItem(base.prefixBytes, after.prefixBytes, size),
        unit: 'B',
        target: TARGETS.redisBytesPerSchedule,
        note: `${after.prefixKeys} keys; growth ${after.prefixBytes - base.prefixBytes} B in all`,
      },
      {
        scenario: SCENARIO,
        name: `${label} schedules: Redis used_memory growth per schedule`,
        value: perItem(base.usedMemory, after.usedMemory, size),
        unit: 'B',
        note: 'whole Redis; moved by other users of this Redis too',
      },
      {
        scenario: SCENARIO,
        name: `${label} schedules: scheduler CPU while idle`,
        value: cpu.processes[service.scheduler.name] ?? null,
        unit: '% of a core',
        target: TARGETS.schedulerIdleCpuPercent,
        note: [`over ${Math.round(cpu.windowMs / 1000)} s`, small].filter(Boolean).join('; '),
      },
      { scenario: SCENARIO, name: `${label} schedules: scheduler RSS`, value: bytesToMiB(after.rss[service.scheduler.name]), unit: 'MiB' },
      { scenario: SCENARIO, name: `${label} schedules: Postgres bytes per job`, value: jobs.rows > 0 ? jobs.bytes / jobs.rows : null, unit: 'B', note: `${jobs.rows.toLocaleString('en-US')} jobs` },
    );
    details[`schedules_${size}`] = { seedMs, after, cpu, jobs };
  }
  // Every process's RSS at the largest size.
  const last = details[`schedules_${seeded}`] as { after: Snapshot };
  for (const proc of service.all()) {
    if (proc === service.scheduler) continue;
    figures.push({ scenario: SCENARIO, name: `${seeded.toLocaleString('en-US')} schedules: ${proc.name} RSS`, value: bytesToMiB(last.after.rss[proc.name]), unit: 'MiB' });
  }
  return {
    figures,
    parameters: { schedules: p.schedules, executions: p.executions, idleWindowMs: p.idleWindowMs, lookaheadMs: lookahead, tickMs: tick, mix: 'half cron daily, half recurring every 1440 min; next fire 10 min to 23 h ahead' },
    details,
  };
}

function bytesToMiB(bytes: number | null | undefined): number | null {
  return bytes === null || bytes === undefined ? null : bytes / MiB;
}
