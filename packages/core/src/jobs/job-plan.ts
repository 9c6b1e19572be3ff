import { nextFireAfter, type Schedule } from '../schedules/next-run.js';

/**
 * When an active job next fires, counted from `from`; null when nothing is scheduled
 * (draft, paused, completed, one_time and webhook_trigger jobs: docs/JOBS.md, "Fields the service sets").
 */
export function plannedNextRun(job: { kind: string; state: string; schedule: unknown; scheduleAnchor: Date }, from: Date): Date | null {
  if (job.state !== 'active') return null;
  return nextFireAfter({ kind: job.kind, schedule: job.schedule as Schedule | null, scheduleAnchor: job.scheduleAnchor }, from);
}

/** Defaults of fields whose default depends on the kind. */
export function defaultMaxConcurrency(kind: string): number {
  return kind === 'workflow' || kind === 'webhook_trigger' ? 1 : 0;
}
