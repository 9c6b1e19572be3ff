import { nextCronFire, parseCron } from './cron.js';
import { nextRecurringFire } from './recurring.js';

export type JobKind = 'recurring' | 'cron' | 'scheduled' | 'one_time' | 'workflow' | 'webhook_trigger';

export interface Schedule {
  every_n_minutes?: number;
  cron?: string;
  run_at?: string;
}

export interface Schedulable {
  kind: string;
  schedule: Schedule | null;
  scheduleAnchor: Date;
}

/** Kinds whose schedule repeats; the others fire once or only on demand. */
export function isRepeating(kind: string): boolean {
  return kind === 'recurring' || kind === 'cron' || kind === 'workflow';
}

/**
 * The first fire strictly after `after`, or null when the kind has no schedule.
 * A `scheduled` job's single fire is its `run_at`, however late it is found.
 */
export function nextFireAfter(job: Schedulable, after: Date): Date | null {
  const schedule = job.schedule;
  if (!schedule) return null;
  switch (job.kind) {
    case 'recurring':
      return nextRecurringFire(job.scheduleAnchor, schedule.every_n_minutes as number, after);
    case 'cron':
    case 'workflow':
      return nextCronFire(parseCron(schedule.cron as string), after);
    case 'scheduled':
      return schedule.run_at ? new Date(schedule.run_at) : null;
    default:
      return null;
  }
}
