import { downDeadline, nextExpectedAfter } from './monitor-schedule.js';

const at = (iso: string) => new Date(iso);
const cron = (expression: string) => ({ expectedIntervalSec: null, scheduleCron: expression });
const every = (seconds: number) => ({ expectedIntervalSec: seconds, scheduleCron: null });
const iso = (d: Date) => d.toISOString();

describe('when the next ping is expected', () => {
  it('adds the interval to the window start', () => {
    expect(iso(nextExpectedAfter(every(90), at('2030-01-01T00:00:00.250Z')))).toBe('2030-01-01T00:01:30.250Z');
    expect(iso(nextExpectedAfter(every(31_536_000), at('2030-01-01T00:00:00.000Z')))).toBe('2031-01-01T00:00:00.000Z');
  });

  it('takes the cron expression’s first fire strictly after the window start, in UTC', () => {
    // A nightly 03:00 job that pinged at 03:00:40 is next expected tomorrow at 03:00.
    expect(iso(nextExpectedAfter(cron('0 3 * * *'), at('2030-03-05T03:00:40.000Z')))).toBe('2030-03-06T03:00:00.000Z');
    // A ping a little early (02:59:58) expects the 03:00 fire it stands for.
    expect(iso(nextExpectedAfter(cron('0 3 * * *'), at('2030-03-05T02:59:58.000Z')))).toBe('2030-03-05T03:00:00.000Z');
    // Exactly on a fire: the next one.
    expect(iso(nextExpectedAfter(cron('*/15 * * * *'), at('2030-03-05T10:15:00.000Z')))).toBe('2030-03-05T10:30:00.000Z');
  });

  it('follows the job cron rules: names, weekdays, month ends, leap days and macros', () => {
    // Weekdays at 18:30: Friday evening expects Monday.
    expect(iso(nextExpectedAfter(cron('30 18 * * MON-FRI'), at('2030-03-08T18:31:00.000Z')))).toBe('2030-03-11T18:30:00.000Z');
    // Day of month and day of week both restricted: either matches (the 1st or a Sunday).
    expect(iso(nextExpectedAfter(cron('0 0 1 * 0'), at('2030-03-02T12:00:00.000Z')))).toBe('2030-03-03T00:00:00.000Z');
    // The 31st skips the months without one.
    expect(iso(nextExpectedAfter(cron('0 12 31 * *'), at('2030-03-31T12:00:00.000Z')))).toBe('2030-05-31T12:00:00.000Z');
    // Feb 29 only in a leap year.
    expect(iso(nextExpectedAfter(cron('0 0 29 2 *'), at('2030-01-01T00:00:00.000Z')))).toBe('2032-02-29T00:00:00.000Z');
    expect(iso(nextExpectedAfter(cron('@monthly'), at('2030-12-15T00:00:00.000Z')))).toBe('2031-01-01T00:00:00.000Z');
    // Across the end of a year.
    expect(iso(nextExpectedAfter(cron('@hourly'), at('2030-12-31T23:59:59.999Z')))).toBe('2031-01-01T00:00:00.000Z');
  });
});

describe('when an up monitor goes down without a ping', () => {
  const expected = at('2030-03-06T03:00:00.000Z');

  it('is the next expected ping plus the grace', () => {
    expect(iso(downDeadline(expected, 0, { startedAt: null, maxDurationSec: null }))).toBe('2030-03-06T03:00:00.000Z');
    expect(iso(downDeadline(expected, 600, { startedAt: null, maxDurationSec: 60 }))).toBe('2030-03-06T03:10:00.000Z');
  });

  it('is earlier when a started run reaches max_duration_sec first', () => {
    const started = at('2030-03-06T01:00:00.000Z');
    expect(iso(downDeadline(expected, 600, { startedAt: started, maxDurationSec: 3_600 }))).toBe('2030-03-06T02:00:00.000Z');
    // A run allowed longer than the schedule leaves the schedule's deadline.
    expect(iso(downDeadline(expected, 600, { startedAt: started, maxDurationSec: 86_400 }))).toBe('2030-03-06T03:10:00.000Z');
    // Without a max duration, a start does not move the deadline.
    expect(iso(downDeadline(expected, 600, { startedAt: started, maxDurationSec: null }))).toBe('2030-03-06T03:10:00.000Z');
  });
});
