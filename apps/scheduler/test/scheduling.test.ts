import { createJob, createRuntime, fireDueJobs, pauseJob, resumeJob, serviceLogger, updateJob, type Deps } from '@cronsvc/core';
import { aCronJob, aRecurringJob, aScheduledJob, useWorkspace, type TestContext } from '@cronsvc/core/testing';

let ctx: TestContext;
let workspaceId: string;
let now: Date;
let deps: Deps;
const T0 = new Date('2030-01-07T10:00:00.000Z');

const w = useWorkspace();
beforeAll(() => ({ ctx, workspaceId } = w));
beforeEach(() => {
  now = T0;
  deps = { ...ctx.runtime, clock: { now: () => now } };
});

const at = (offsetMs: number) => new Date(T0.getTime() + offsetMs);
const MIN = 60_000;
const fire = () => fireDueJobs(deps, { lookaheadMs: 0 });
const executionsOf = (jobId: string) => ctx.runtime.db.execution.findMany({ where: { jobId }, orderBy: { scheduledFor: 'asc' } });
const job = (id: string) => ctx.runtime.db.job.findUniqueOrThrow({ where: { id } });

describe('firing due schedules', () => {
  it('fires a recurring job on its grid from creation, without drift', async () => {
    const { job: created } = await createJob(deps, workspaceId, aRecurringJob({ schedule: { every_n_minutes: 5 } }));
    expect(created.nextRunAt).toEqual(at(5 * MIN));
    now = at(5 * MIN - 1);
    await fire();
    expect(await executionsOf(created.id)).toHaveLength(0);
    now = at(5 * MIN + 1_500);
    await fire();
    now = at(10 * MIN + 40_000);
    await fire();
    const fired = await executionsOf(created.id);
    expect(fired.map((e) => [e.scheduledFor, e.source, e.status])).toEqual([
      [at(5 * MIN), 'schedule', 'queued'],
      [at(10 * MIN), 'schedule', 'queued'],
    ]);
    expect((await job(created.id)).nextRunAt).toEqual(at(15 * MIN));
  });

  it('fires one catch-up execution for a window missed while down, then keeps the grid', async () => {
    const { job: created } = await createJob(deps, workspaceId, aRecurringJob({ schedule: { every_n_minutes: 1 } }));
    now = at(60 * MIN + 30_000);
    await fire();
    await fire();
    const fired = await executionsOf(created.id);
    expect(fired.map((e) => e.scheduledFor)).toEqual([at(MIN)]);
    expect((await job(created.id)).nextRunAt).toEqual(at(61 * MIN));
  });

  it('fires a cron job at its UTC minutes', async () => {
    const { job: created } = await createJob(deps, workspaceId, aCronJob({ schedule: { cron: '*/20 10 * * *' } }));
    expect(created.nextRunAt).toEqual(at(20 * MIN));
    now = at(20 * MIN);
    await fire();
    expect((await executionsOf(created.id)).map((e) => e.scheduledFor)).toEqual([at(20 * MIN)]);
    expect((await job(created.id)).nextRunAt).toEqual(at(40 * MIN));
  });

  it('fires a scheduled job once at run_at and schedules nothing after it', async () => {
    const { job: created } = await createJob(deps, workspaceId, aScheduledJob({ schedule: { run_at: at(90_000).toISOString() } }));
    now = at(90_000);
    await fire();
    now = at(10 * MIN);
    await fire();
    expect((await executionsOf(created.id)).map((e) => e.scheduledFor)).toEqual([at(90_000)]);
    expect((await job(created.id)).nextRunAt).toBeNull();
  });

  it('never fires draft or paused jobs, and resume restarts the grid at the resume time', async () => {
    const { job: draft } = await createJob(deps, workspaceId, aRecurringJob({ schedule: { every_n_minutes: 1 }, state: 'draft' }));
    const { job: paused } = await createJob(deps, workspaceId, aRecurringJob({ schedule: { every_n_minutes: 2 } }));
    await pauseJob(deps, workspaceId, paused.id);
    now = at(30 * MIN);
    await fire();
    expect(await executionsOf(draft.id)).toHaveLength(0);
    expect(await executionsOf(paused.id)).toHaveLength(0);
    now = at(30 * MIN + 7_000);
    const resumed = await resumeJob(deps, workspaceId, paused.id);
    expect(resumed.nextRunAt).toEqual(at(32 * MIN + 7_000));
  });

  it('queues fires ahead within the lookahead, and pausing or rescheduling cancels them', async () => {
    const { job: created } = await createJob(deps, workspaceId, aRecurringJob({ schedule: { every_n_minutes: 1 } }));
    now = at(MIN - 2_000);
    await fireDueJobs(deps, { lookaheadMs: 5_000 });
    const ahead = await executionsOf(created.id);
    expect(ahead.map((e) => [e.scheduledFor, e.status, e.nextAttemptAt])).toEqual([[at(MIN), 'queued', at(MIN)]]);
    await pauseJob(deps, workspaceId, created.id);
    expect(await executionsOf(created.id)).toHaveLength(0);

    now = at(MIN);
    await resumeJob(deps, workspaceId, created.id);
    now = at(2 * MIN - 1_000);
    await fireDueJobs(deps, { lookaheadMs: 5_000 });
    expect(await executionsOf(created.id)).toHaveLength(1);
    await updateJob(deps, workspaceId, created.id, { schedule: { every_n_minutes: 10 } });
    expect(await executionsOf(created.id)).toHaveLength(0);
  });

  it('fires each slot once when two schedulers run at the same moment', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      ids.push((await createJob(deps, workspaceId, aRecurringJob({ schedule: { every_n_minutes: 1 } }))).job.id);
    }
    const other = createRuntime(ctx.config, serviceLogger(ctx.config, 'twin'));
    try {
      now = at(MIN);
      const [a, b] = await Promise.all([
        fireDueJobs(deps, { lookaheadMs: 0, batchSize: 7 }),
        fireDueJobs({ ...other, clock: deps.clock }, { lookaheadMs: 0, batchSize: 7 }),
      ]);
      expect(a + b).toBeGreaterThanOrEqual(40);
      const counts = await ctx.runtime.db.execution.groupBy({ by: ['jobId'], where: { jobId: { in: ids } }, _count: true });
      expect(counts).toHaveLength(40);
      expect(counts.every((c) => c._count === 1)).toBe(true);
    } finally {
      await other.close();
    }
  });
});
