import type { FireOutcome } from '@cronsvc/contracts';

/** What the ledger knows of a slot that got its own execution. */
export interface ExecutedFire {
  dueAt: Date;
  /** When the execution sent its first request (its started_at); null until then. */
  firedAt: Date | null;
  caughtUp: boolean;
}

/**
 * The outcome of a slot with an execution (docs/JOBS.md, "The fire ledger"): pending until its
 * first request, then caught_up for a window's catch-up, fired when at most `lateAfterMs` after
 * its due time, late otherwise. The ledger's listing says the same in SQL (list-fires.ts).
 */
export function executedFireOutcome(fire: ExecutedFire, lateAfterMs: number): Extract<FireOutcome, 'pending' | 'fired' | 'late' | 'caught_up'> {
  if (fire.firedAt === null) return 'pending';
  if (fire.caughtUp) return 'caught_up';
  return lagMs(fire.dueAt, fire.firedAt) <= lateAfterMs ? 'fired' : 'late';
}

/** fired_at - due_at, never below 0: an executor's clock a little ahead of the database's does not make a fire early. */
export function lagMs(dueAt: Date, firedAt: Date): number {
  return Math.max(0, firedAt.getTime() - dueAt.getTime());
}
