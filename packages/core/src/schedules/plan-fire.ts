import type { CatchUpPolicy } from '@cronsvc/contracts';
import { isRepeating, nextFireAfter, type Schedule, type Schedulable } from './next-run.js';
import { isMissedWindow, jitterOffsetMs, slotsFrom } from './slots.js';

export interface DueJob {
  id: string;
  workspace_id: string;
  name: string;
  kind: string;
  schedule: Schedule | null;
  schedule_anchor: Date;
  next_run_at: Date;
  catch_up_policy: CatchUpPolicy;
  jitter_seconds: number;
}

/** The execution a plan creates: the slot it fires, its jitter offset, and whether it is a window's catch-up. */
export interface PlannedExecution {
  scheduledFor: Date;
  jitterMs: number;
  caughtUp: boolean;
}

/** A slot of a window that gets no execution of its own. */
export interface MissedSlot {
  scheduledFor: Date;
  dueAt: Date;
}

export interface FirePlan {
  /** Null when the window is recorded only (catch_up_policy none). */
  execution: PlannedExecution | null;
  missed: MissedSlot[];
  /** Whether the window had more slots than a window lists (MAX_WINDOW_SLOTS); those are not recorded. */
  unlisted: boolean;
  nextRunAt: Date | null;
}

export interface PlanOptions {
  /** FIRE_LATE_AFTER_SECONDS in ms. */
  lateAfterMs: number;
  /** Draws each slot's jitter offset. */
  random: () => number;
}

const plusMs = (d: Date, ms: number) => new Date(d.getTime() + ms);

/**
 * What the scheduler does with a due job (docs/JOBS.md, "The fire ledger"). A slot still ahead,
 * or found only a little late, fires as its own execution. Slots that passed while nothing fired
 * them form a window: policy `one` fires one catch-up recorded against the window's first slot
 * and records the others as missed, linked to it; policy `none` records every slot as missed.
 * Either way the job continues at its first slot after now. Each planned slot draws its jitter
 * offset once, here.
 */
export function planFire(job: DueJob, now: Date, options: PlanOptions): FirePlan {
  const first = job.next_run_at;
  const schedulable: Schedulable = { kind: job.kind, schedule: job.schedule, scheduleAnchor: job.schedule_anchor };
  const nextRunAt = isRepeating(job.kind) ? nextFireAfter(schedulable, first > now ? first : now) : null;
  const jitter = () => jitterOffsetMs(job.jitter_seconds, options.random);
  const firstJitter = jitter();
  const { slots: passed, more } = slotsFrom(schedulable, first, now);
  if (!isMissedWindow(passed, plusMs(first, firstJitter), now, options.lateAfterMs)) {
    return { execution: { scheduledFor: first, jitterMs: firstJitter, caughtUp: false }, missed: [], unlisted: false, nextRunAt };
  }
  const missedSlot = (slot: Date, offset = jitter()): MissedSlot => ({ scheduledFor: slot, dueAt: plusMs(slot, offset) });
  if (job.catch_up_policy === 'none') {
    return { execution: null, missed: passed.map((slot, i) => (i === 0 ? missedSlot(slot, firstJitter) : missedSlot(slot))), unlisted: more, nextRunAt };
  }
  return {
    execution: { scheduledFor: first, jitterMs: firstJitter, caughtUp: true },
    missed: passed.slice(1).map((slot) => missedSlot(slot)),
    unlisted: more,
    nextRunAt,
  };
}
