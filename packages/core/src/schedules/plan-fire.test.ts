import { planFire } from './fire-due-jobs.js';

type DueJob = Parameters<typeof planFire>[0];

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
    ...overrides,
  };
}

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

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
      expect(nextRunAt.getTime()).toBeGreaterThan(plan.scheduledFor.getTime());
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
