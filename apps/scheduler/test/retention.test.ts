import { executionRow, JOB_STATS_KEPT_DAYS, pruneExecutions, pruneFireGaps, pruneJobStats, pruneMonitorDeliveries, retentionCutoff } from '@cronsvc/core';
import { aDelivery, aJob, aMonitor, useWorkspace, waitFor, type TestContext } from '@cronsvc/core/testing';
import { startScheduler } from '../src/scheduler.js';

let ctx: TestContext;
let workspaceId: string;
let jobId: string;
const DAY = 86_400_000;
const FINISHED = ['succeeded', 'failed'];

const w = useWorkspace();
beforeAll(async () => {
  ({ ctx, workspaceId } = w);
  // A draft never fires, so the scheduler started below adds no executions of its own.
  jobId = (await aJob(ctx.runtime, workspaceId, { name: 'j', state: 'draft' })).id;
});

/** An execution created `ageDays` ago with one attempt and one callback delivery, written straight to Postgres. */
async function backDated(status: string, ageDays: number): Promise<string> {
  const db = ctx.runtime.db;
  const createdAt = new Date(Date.now() - ageDays * DAY);
  const finished = FINISHED.includes(status);
  const { id } = await db.execution.create({
    data: {
      ...executionRow({ workspaceId, jobId, jobName: 'j', source: 'manual', scheduledFor: createdAt }),
      status,
      createdAt,
      finishedAt: finished ? createdAt : null,
      deadLetteredAt: status === 'failed' ? createdAt : null,
    },
  });
  await db.attempt.create({ data: { executionId: id, number: 1, status: 'SUCCESS', latencyMs: 5, startedAt: createdAt } });
  await aDelivery(ctx.runtime, workspaceId, { executionId: id, event: 'on_success', status: 'sent' });
  return id;
}

async function remaining(ids: string[]) {
  const db = ctx.runtime.db;
  const where = { executionId: { in: ids } };
  return {
    executions: (await db.execution.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((e) => e.id).sort(),
    attempts: (await db.attempt.findMany({ where, select: { executionId: true } })).map((a) => a.executionId).sort(),
    deliveries: (await db.delivery.findMany({ where, select: { executionId: true } })).map((d) => d.executionId).sort(),
  };
}

describe('pruneExecutions', () => {
  it('deletes finished executions past the cutoff with their attempts and deliveries, and keeps the rest', async () => {
    const oldSucceeded = await backDated('succeeded', 31);
    const oldFailed = await backDated('failed', 31);
    const recent = await Promise.all(FINISHED.map((s) => backDated(s, 29)));
    const unfinished = await Promise.all(['queued', 'running', 'waiting'].map((s) => backDated(s, 40)));
    const kept = [...recent, ...unfinished].sort();

    const pruned = await pruneExecutions(ctx.runtime, { olderThan: retentionCutoff(new Date(), 30) });

    expect(pruned).toBe(2);
    expect(await remaining([oldSucceeded, oldFailed, ...kept])).toEqual({ executions: kept, attempts: kept, deliveries: kept });
  });

  it('keeps deleting in batches until fewer than a batch are left', async () => {
    const old = await Promise.all(Array.from({ length: 5 }, () => backDated('succeeded', 100)));
    expect(await pruneExecutions(ctx.runtime, { olderThan: retentionCutoff(new Date(), 30), batchSize: 2 })).toBe(5);
    expect((await remaining(old)).executions).toEqual([]);
  });
});

describe('pruneMonitorDeliveries', () => {
  it('deletes finished monitor deliveries past the cutoff, and keeps recent and unfinished ones', async () => {
    const monitor = await aMonitor(ctx.runtime, workspaceId);
    const delivery = (status: string, ageDays: number) =>
      aDelivery(ctx.runtime, workspaceId, { monitorId: monitor.id, kind: 'channel', event: 'on_down', status, createdAt: new Date(Date.now() - ageDays * DAY) });
    const old = await Promise.all([delivery('sent', 31), delivery('failed', 31)]);
    const kept = await Promise.all([delivery('sent', 29), delivery('pending', 40)]);
    expect(await pruneMonitorDeliveries(ctx.runtime, { olderThan: retentionCutoff(new Date(), 30), batchSize: 1 })).toBe(2);
    const left = await ctx.runtime.db.delivery.findMany({ where: { monitorId: monitor.id }, select: { id: true } });
    expect(left.map((d) => d.id).sort()).toEqual(kept.map((d) => d.id).sort());
    expect(old.every((d) => !left.some((l) => l.id === d.id))).toBe(true);
  });
});

/** A missed slot of the fire ledger recorded `ageDays` ago. */
async function backDatedGap(ageDays: number): Promise<Date> {
  const at = new Date(Date.now() - ageDays * DAY);
  await ctx.runtime.db.fireGap.create({ data: { jobId, workspaceId, scheduledFor: at, dueAt: at, outcome: 'missed', createdAt: at } });
  return at;
}

describe('pruneFireGaps', () => {
  it('deletes the fire ledger’s gaps recorded before the cutoff, as executions of that age go', async () => {
    const old = await Promise.all([31, 32, 33].map(backDatedGap));
    const recent = await backDatedGap(29);
    expect(await pruneFireGaps(ctx.runtime, { olderThan: retentionCutoff(new Date(), 30), batchSize: 2 })).toBe(3);
    const left = await ctx.runtime.db.fireGap.findMany({ where: { jobId, scheduledFor: { in: [...old, recent] } } });
    expect(left.map((g) => g.scheduledFor)).toEqual([recent]);
  });
});

describe('pruneJobStats', () => {
  it('deletes the statistics rollup’s hours older than 91 days and keeps the rest, whatever the executions’ retention', async () => {
    const hour = (ageDays: number) => new Date(Math.floor((Date.now() - ageDays * DAY) / 3_600_000) * 3_600_000);
    for (const [age, durationClass] of [[92, 1], [92, 2], [100, 1], [90, 1], [31, 1]] as const) {
      await ctx.runtime.pool.query('INSERT INTO job_stats_hourly (job_id, hour, duration_class, executions, failed) VALUES ($1, $2, $3, 1, 0)', [jobId, hour(age), durationClass]);
    }
    expect(JOB_STATS_KEPT_DAYS).toBe(91);
    expect(await pruneJobStats(ctx.runtime, { olderThan: retentionCutoff(new Date(), JOB_STATS_KEPT_DAYS), batchSize: 2 })).toBe(3);
    const { rows } = await ctx.runtime.pool.query<{ hour: Date }>('SELECT hour FROM job_stats_hourly WHERE job_id = $1 ORDER BY hour', [jobId]);
    expect(rows.map((r) => r.hour)).toEqual([hour(90), hour(31)]);
  });
});

describe('the scheduler', () => {
  it('prunes executions and fire gaps at start-up with the cutoff EXECUTION_RETENTION_DAYS gives', async () => {
    const pastWeek = await backDated('succeeded', 8);
    const withinWeek = await backDated('succeeded', 6);
    const gapPastWeek = await backDatedGap(8);
    const scheduler = await startScheduler({ ...ctx.runtime, config: { ...ctx.config, executionRetentionDays: 7 } });
    try {
      await waitFor(async () => (await remaining([pastWeek])).executions.length === 0, { what: 'the start-up prune' });
      await waitFor(async () => (await ctx.runtime.db.fireGap.count({ where: { jobId, scheduledFor: gapPastWeek } })) === 0, { what: 'the start-up prune of gaps' });
    } finally {
      await scheduler.stop();
    }
    expect((await remaining([withinWeek])).executions).toEqual([withinWeek]);
  });
});
