import type { JobRow } from '../db/client.js';
import { nextFireAfter, type Schedule } from '../schedules/next-run.js';

/**
 * The next `count` fires of an active job, from its stored next_run_at on, by the scheduler's own
 * schedule math: what the scheduler will do, for people to read. A job that fires once (scheduled)
 * gives one; one that is not active, or has nothing scheduled, gives none.
 */
export function upcomingFires(job: Pick<JobRow, 'kind' | 'state' | 'schedule' | 'scheduleAnchor' | 'nextRunAt'>, count: number): Date[] {
  if (job.state !== 'active' || job.nextRunAt === null) return [];
  const schedulable = { kind: job.kind, schedule: job.schedule as Schedule | null, scheduleAnchor: job.scheduleAnchor };
  const fires = [job.nextRunAt];
  while (fires.length < count) {
    const last = fires[fires.length - 1];
    const next = nextFireAfter(schedulable, last);
    if (next === null || next <= last) break;
    fires.push(next);
  }
  return fires;
}
