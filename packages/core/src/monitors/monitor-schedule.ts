import { nextCronFire, parseCron, type CronSpec } from '../schedules/cron.js';

/** What a monitor's schedule is made of: an interval or a cron expression (UTC), exactly one. */
export interface MonitorSchedule {
  expectedIntervalSec: number | null;
  scheduleCron: string | null;
}

// Pings parse the same few expressions over and over; parsed specs are immutable.
const parsed = new Map<string, CronSpec>();
const PARSED_MAX = 1_000;

function specOf(expression: string): CronSpec {
  let spec = parsed.get(expression);
  if (!spec) {
    if (parsed.size >= PARSED_MAX) parsed.clear();
    spec = parseCron(expression);
    parsed.set(expression, spec);
  }
  return spec;
}

/**
 * When the next ping is expected in a window starting at `from`: `from` + the interval, or the
 * cron expression's first fire strictly after `from` (the job cron evaluator, UTC).
 */
export function nextExpectedAfter(schedule: MonitorSchedule, from: Date): Date {
  if (schedule.scheduleCron !== null) return nextCronFire(specOf(schedule.scheduleCron), from);
  return new Date(from.getTime() + (schedule.expectedIntervalSec as number) * 1000);
}

/**
 * The moment an up monitor goes down without a ping: its next expected ping plus the grace, or,
 * earlier, the end of `max_duration_sec` after the start of a run in progress.
 */
export function downDeadline(nextExpected: Date, graceSec: number, run: { startedAt: Date | null; maxDurationSec: number | null }): Date {
  const late = nextExpected.getTime() + graceSec * 1000;
  if (run.startedAt === null || run.maxDurationSec === null) return new Date(late);
  return new Date(Math.min(late, run.startedAt.getTime() + run.maxDurationSec * 1000));
}
