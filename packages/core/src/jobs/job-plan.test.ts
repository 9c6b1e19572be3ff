import { defaultMaxConcurrency, plannedNextRun } from './job-plan.js';

const anchor = new Date('2030-01-01T10:00:00.000Z');
const from = new Date('2030-01-01T10:07:30.000Z');
const job = (kind: string, schedule: unknown, state = 'active') => ({ kind, state, schedule, scheduleAnchor: anchor });

describe('plannedNextRun', () => {
  it('puts a recurring job on its grid from its anchor: the first slot after `from`', () => {
    expect(plannedNextRun(job('recurring', { every_n_minutes: 5 }), from)).toEqual(new Date('2030-01-01T10:10:00.000Z'));
  });

  it('gives cron and workflow jobs the next matching minute, in UTC', () => {
    expect(plannedNextRun(job('cron', { cron: '0 * * * *' }), from)).toEqual(new Date('2030-01-01T11:00:00.000Z'));
    expect(plannedNextRun(job('workflow', { cron: '*/15 * * * *' }), from)).toEqual(new Date('2030-01-01T10:15:00.000Z'));
  });

  it("gives a scheduled job its run_at, however late it is found", () => {
    expect(plannedNextRun(job('scheduled', { run_at: '2030-01-01T09:00:00.000Z' }), from)).toEqual(new Date('2030-01-01T09:00:00.000Z'));
  });

  it('plans nothing for kinds that are not scheduled: one_time and webhook_trigger', () => {
    expect(plannedNextRun(job('one_time', null), from)).toBeNull();
    expect(plannedNextRun(job('webhook_trigger', null), from)).toBeNull();
  });

  it.each(['draft', 'paused', 'completed'])('plans nothing for a %s job', (state) => {
    expect(plannedNextRun(job('recurring', { every_n_minutes: 5 }, state), from)).toBeNull();
    expect(plannedNextRun(job('cron', { cron: '* * * * *' }, state), from)).toBeNull();
  });
});

describe('defaultMaxConcurrency', () => {
  it('is 1 for step-driven jobs and 0 (unlimited) for request jobs', () => {
    expect(['workflow', 'webhook_trigger'].map(defaultMaxConcurrency)).toEqual([1, 1]);
    expect(['recurring', 'cron', 'scheduled', 'one_time'].map(defaultMaxConcurrency)).toEqual([0, 0, 0, 0]);
  });
});
