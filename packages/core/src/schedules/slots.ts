import { isRepeating, nextFireAfter, type Schedulable } from './next-run.js';

/**
 * The most slots one window of passed slots lists in the fire ledger: a week of a one-minute job.
 * A longer outage lists the window's first ones; the scheduler logs how many more it had.
 */
export const MAX_WINDOW_SLOTS = 10_000;

/**
 * The slots of a schedule from `first` (itself a slot) up to and including `until`, oldest first,
 * at most `max` of them; `more` tells whether the schedule had further slots by `until`. A kind
 * that does not repeat has `first` as its only slot.
 */
export function slotsFrom(job: Schedulable, first: Date, until: Date, max = MAX_WINDOW_SLOTS): { slots: Date[]; more: boolean } {
  if (first > until) return { slots: [], more: false };
  if (!isRepeating(job.kind)) return { slots: [first], more: false };
  const slots: Date[] = [];
  let slot: Date | null = first;
  while (slot !== null && slot <= until && slots.length < max) {
    slots.push(slot);
    slot = nextFireAfter(job, slot);
  }
  return { slots, more: slot !== null && slot <= until };
}

/**
 * A slot's jitter offset, drawn once when the slot is planned: whole milliseconds, uniform in
 * [0, jitterSeconds] seconds. `random` is Math.random's contract, [0, 1).
 */
export function jitterOffsetMs(jitterSeconds: number, random: () => number): number {
  if (jitterSeconds <= 0) return 0;
  const span = jitterSeconds * 1000;
  return Math.min(span, Math.floor(random() * (span + 1)));
}

/**
 * Whether the slots found passed (`passed`, oldest first, the first due at `firstDueAt`) are a
 * window that passed while nothing fired them: more than one slot went by, or the one slot is
 * more than `lateAfterMs` past its due time. Otherwise the slot is merely found a little late
 * (a scheduler tick, a short restart) and fires as its own.
 */
export function isMissedWindow(passed: readonly Date[], firstDueAt: Date, now: Date, lateAfterMs: number): boolean {
  if (passed.length >= 2) return true;
  return passed.length === 1 && now.getTime() - firstDueAt.getTime() > lateAfterMs;
}
