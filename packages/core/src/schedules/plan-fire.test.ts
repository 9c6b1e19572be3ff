import { planFire as plan, type DueJob, type PlanOptions } from './plan-fire.js';

const ANCHOR = new Date('2024-01-01T00:00:00.000Z');
const at = (iso: string) => new Date(iso);

function job(overrides: Partial<DueJob>): DueJob {
  return {
    id: 'job_1',
    workspace_id: 'wsp_1',
    name: 'test',
    kind: 'recurring',
    schedule: { every_n_minutes: 10 },
    schedule_anchor: ANCHOR,
    next_run_at: at('2024-01-01T00:20:00.000Z'),
    catch_up_policy: 'one',
    jitter_seconds: 0,
    ...overrides,
  };
}

const iso = (d: Date | null) => (d === null ? null : d.toISOString());
const OPTIONS: PlanOptions = { lateAfterMs: 60_000, random: () => 0.5 };

/** The plan in the shape these tests read: the slot its execution fires and the job's next run. */
function planFire(due: DueJob, now: Date, options: Partial<PlanOptions> = {}) {
  const p = plan(due, now, { ...OPTIONS, ...options });
  return { ...p, scheduledFor: p.execution?.scheduledFor ?? null };
}

describe('planFire: recurring', () => {
  it('keeps the grid for a slot still in the future (found within the lookahead)', () => {
    const plan = planFire(job({}), at('2024-01-01T00:19:30.000Z'));
    expect(iso(plan.scheduledFor)).toBe('2024-01-01T00:20:00.000Z');
    expect(iso(plan.nextRunAt)).toBe('2024-01-01T00:30:00.000Z');
  });

  it('moves to the following slot when the slot is exactly now', () => {
    const plan = planFire(job({}), at('2024-01-01T00:20:00.000Z'));
    expect(iso(plan.scheduledFor)).toBe('2024-01-01T00:20:00.000Z');
    expect(iso(plan.nextRunAt)).toBe('2024-01-01T00:30:00.000Z');
  });

  it('fires a slot missed by several periods once, then continues at the first slot after now', () => {
    const plan = planFire(job({}), at('2024-01-01T01:05:10.000Z'));
    expect(iso(plan.scheduledFor)).toBe('2024-01-01T00:20:00.000Z');
    expect(iso(plan.nextRunAt)).toBe('2024-01-01T01:10:00.000Z');
  });

  it('does not schedule a second catch-up for a now that lands exactly on a later slot', () => {
    const plan = planFire(job({}), at('2024-01-01T01:10:00.000Z'));
    expect(iso(plan.scheduledFor)).toBe('2024-01-01T00:20:00.000Z');
    expect(iso(plan.nextRunAt)).toBe('2024-01-01T01:20:00.000Z');
  });

  it('keeps the next run on the anchor grid after a long outage', () => {
    const plan = planFire(job({ schedule: { every_n_minutes: 7 } }), at('2024-01-03T05:00:00.000Z'));
    const nextRunAt = plan.nextRunAt as Date;
    expect((nextRunAt.getTime() - ANCHOR.getTime()) % (7 * 60_000)).toBe(0);
    expect(nextRunAt.getTime()).toBeGreaterThan(at('2024-01-03T05:00:00.000Z').getTime());
    expect(nextRunAt.getTime() - 7 * 60_000).toBeLessThanOrEqual(at('2024-01-03T05:00:00.000Z').getTime());
  });

  it('always gives a next run strictly after both the fired slot and now', () => {
    for (const now of ['2024-01-01T00:00:00.000Z', '2024-01-01T00:19:59.999Z', '2024-01-01T00:20:00.001Z', '2024-01-02T00:00:00.000Z']) {
      const plan = planFire(job({}), at(now));
      const nextRunAt = plan.nextRunAt as Date;
      expect(nextRunAt.getTime()).toBeGreaterThan((plan.scheduledFor as Date).getTime());
      expect(nextRunAt.getTime()).toBeGreaterThan(at(now).getTime());
    }
  });
});

describe('planFire: cron and workflow', () => {
  const hourly = { kind: 'cron', schedule: { cron: '0 * * * *' }, next_run_at: at('2024-01-15T10:00:00.000Z') };

  it('keeps the cron schedule for a slot still in the future', () => {
    const plan = planFire(job(hourly), at('2024-01-15T09:59:58.000Z'));
    expect(iso(plan.scheduledFor)).toBe('2024-01-15T10:00:00.000Z');
    expect(iso(plan.nextRunAt)).toBe('2024-01-15T11:00:00.000Z');
  });

  it('fires a cron slot missed by hours once, then continues at the first slot after now', () => {
    const plan = planFire(job(hourly), at('2024-01-15T13:30:00.000Z'));
    expect(iso(plan.scheduledFor)).toBe('2024-01-15T10:00:00.000Z');
    expect(iso(plan.nextRunAt)).toBe('2024-01-15T14:00:00.000Z');
  });

  it('plans workflow jobs from their cron schedule', () => {
    const plan = planFire(job({ ...hourly, kind: 'workflow' }), at('2024-01-15T12:10:00.000Z'));
    expect(iso(plan.scheduledFor)).toBe('2024-01-15T10:00:00.000Z');
    expect(iso(plan.nextRunAt)).toBe('2024-01-15T13:00:00.000Z');
  });
});

describe('planFire: kinds that do not repeat', () => {
  it('gives a scheduled job no next run, firing its run_at', () => {
    const runAt = at('2024-01-15T10:00:00.000Z');
    const plan = planFire(job({ kind: 'scheduled', schedule: { run_at: runAt.toISOString() }, next_run_at: runAt }), at('2024-01-15T09:59:59.000Z'));
    expect(iso(plan.scheduledFor)).toBe('2024-01-15T10:00:00.000Z');
    expect(plan.nextRunAt).toBeNull();
  });

  it('gives a late scheduled job no next run and still fires its original slot', () => {
    const runAt = at('2024-01-15T10:00:00.000Z');
    const plan = planFire(job({ kind: 'scheduled', schedule: { run_at: runAt.toISOString() }, next_run_at: runAt }), at('2024-01-16T00:00:00.000Z'));
    expect(iso(plan.scheduledFor)).toBe('2024-01-15T10:00:00.000Z');
    expect(plan.nextRunAt).toBeNull();
  });

  it.each(['one_time', 'webhook_trigger'])('gives a %s job no next run', (kind) => {
    const plan = planFire(job({ kind, schedule: null }), at('2024-01-01T00:30:00.000Z'));
    expect(iso(plan.scheduledFor)).toBe('2024-01-01T00:20:00.000Z');
    expect(plan.nextRunAt).toBeNull();
  });
});

describe('planFire: the fire ledger', () => {
  const isoSlots = (slots: { scheduledFor: Date }[]) => slots.map((s) => s.scheduledFor.toISOString());

  it('plans an ordinary fire as its own execution, no catch-up, nothing missed', () => {
    const p = planFire(job({}), at('2024-01-01T00:19:55.000Z'));
    expect(p.execution).toEqual({ scheduledFor: at('2024-01-01T00:20:00.000Z'), jitterMs: 0, caughtUp: false });
    expect(p.missed).toEqual([]);
  });

  it('fires a slot found a little late (within FIRE_LATE_AFTER_SECONDS) as its own', () => {
    const p = planFire(job({}), at('2024-01-01T00:20:40.000Z'));
    expect(p.execution?.caughtUp).toBe(false);
    expect(p.missed).toEqual([]);
  });

  it('turns a window of passed slots into one catch-up on its first slot and the others missed', () => {
    const p = planFire(job({}), at('2024-01-01T00:45:00.000Z'));
    expect(p.execution).toEqual({ scheduledFor: at('2024-01-01T00:20:00.000Z'), jitterMs: 0, caughtUp: true });
    expect(isoSlots(p.missed)).toEqual(['2024-01-01T00:30:00.000Z', '2024-01-01T00:40:00.000Z']);
    expect(iso(p.nextRunAt)).toBe('2024-01-01T00:50:00.000Z');
    expect(p.unlisted).toBe(false);
  });

  it('makes one slot found long after its due time a window of one (a catch-up, nothing missed)', () => {
    const p = planFire(job({}), at('2024-01-01T00:25:00.000Z'));
    expect(p.execution?.caughtUp).toBe(true);
    expect(p.missed).toEqual([]);
  });

  it('counts lateness with the threshold it is given', () => {
    expect(planFire(job({}), at('2024-01-01T00:25:00.000Z'), { lateAfterMs: 600_000 }).execution?.caughtUp).toBe(false);
  });

  it('records every slot of the window as missed and runs nothing with catch_up_policy none', () => {
    const p = planFire(job({ catch_up_policy: 'none' }), at('2024-01-01T00:45:00.000Z'));
    expect(p.execution).toBeNull();
    expect(isoSlots(p.missed)).toEqual(['2024-01-01T00:20:00.000Z', '2024-01-01T00:30:00.000Z', '2024-01-01T00:40:00.000Z']);
    expect(iso(p.nextRunAt)).toBe('2024-01-01T00:50:00.000Z');
  });

  it('still fires an ordinary slot with catch_up_policy none', () => {
    expect(planFire(job({ catch_up_policy: 'none' }), at('2024-01-01T00:19:58.000Z')).execution?.caughtUp).toBe(false);
  });

  it('draws each slot its own jitter offset within [0, jitter_seconds]', () => {
    const draws = [0, 0.5, 0.999_999];
    let n = 0;
    const p = planFire(job({ jitter_seconds: 60, catch_up_policy: 'none' }), at('2024-01-01T00:45:00.000Z'), { random: () => draws[n++] });
    expect(p.missed.map((m) => m.dueAt.getTime() - m.scheduledFor.getTime())).toEqual([0, 30_000, 60_000]);
  });

  it('keeps the jittered due time on the execution of an ordinary fire, and the slot on the grid', () => {
    const p = planFire(job({ jitter_seconds: 120 }), at('2024-01-01T00:19:55.000Z'), { random: () => 0.25 });
    expect(p.execution).toEqual({ scheduledFor: at('2024-01-01T00:20:00.000Z'), jitterMs: 30_000, caughtUp: false });
    expect(iso(p.nextRunAt)).toBe('2024-01-01T00:30:00.000Z');
  });

  it('judges a slot found late against its jittered due time', () => {
    const p = planFire(job({ jitter_seconds: 120 }), at('2024-01-01T00:21:10.000Z'), { random: () => 0.5 });
    expect(p.execution?.caughtUp).toBe(false);
  });

  it('records a scheduled job found long after its run_at as a missed slot with policy none', () => {
    const runAt = at('2024-01-15T10:00:00.000Z');
    const p = planFire(job({ kind: 'scheduled', schedule: { run_at: runAt.toISOString() }, next_run_at: runAt, catch_up_policy: 'none' }), at('2024-01-16T00:00:00.000Z'));
    expect(p.execution).toBeNull();
    expect(isoSlots(p.missed)).toEqual(['2024-01-15T10:00:00.000Z']);
    expect(p.nextRunAt).toBeNull();
  });

  it('never lists a slot twice nor the fired slot among the missed', () => {
    const p = planFire(job({ schedule: { every_n_minutes: 1 } }), at('2024-01-01T03:00:30.000Z'));
    const all = [p.execution?.scheduledFor.toISOString(), ...isoSlots(p.missed)];
    expect(new Set(all).size).toBe(all.length);
    expect(all).toHaveLength(161);
  });
});
