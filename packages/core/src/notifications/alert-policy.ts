import type { RuleEvent } from '@cronsvc/contracts';

/**
 * Whether a rule delivers an event, and what it then remembers (docs/NOTIFICATIONS.md, "Quiet
 * but safe alerts"). Pure: the relay reads the rules' state under their row locks, runs this
 * for each event in order, and writes the state back in the same transaction.
 */

/** What a rule remembers between events. */
export interface AlertState {
  event: RuleEvent;
  afterConsecutiveFailures: number;
  /** 0 delivers every failure of an alerted streak; null none after its first delivery. */
  realertAfterMinutes: number | null;
  snoozedUntil: Date | null;
  lastDeliveredAt: Date | null;
  heldBack: number;
  /** on_failure: the streak of the job this rule last delivered for. */
  alertedEpoch: bigint | null;
}

/** An execution event's place in its job's streak (null when it was not counted). */
export interface StreakFacts {
  /** execution.failed: the streak's failures including this one; execution.succeeded: the failures of the streak it ended. */
  failures: number;
  epoch: bigint;
}

/** What the rule makes of one event it subscribes to. */
export type AlertInput =
  | { kind: 'failure'; streak: StreakFacts | null }
  /** A success: whether an on_failure rule of the job delivered for the streak it ended. */
  | { kind: 'recovery'; streak: StreakFacts | null; alertedStreak: boolean }
  | { kind: 'other' };

export type AlertDecision =
  /** `heldBack`: how many events were held back before this one (for the payload). */
  | { deliver: true; heldBack: number; state: AlertState }
  /** `counted`: whether it was an event the rule held back (a success that ends no alerted streak is not one). */
  | { deliver: false; counted: boolean; state: AlertState };

export const isSnoozed = (state: Pick<AlertState, 'snoozedUntil'>, now: Date) => state.snoozedUntil !== null && state.snoozedUntil.getTime() > now.getTime();

function deliver(state: AlertState, now: Date, changes: Partial<AlertState> = {}): AlertDecision {
  return { deliver: true, heldBack: state.heldBack, state: { ...state, ...changes, lastDeliveredAt: now, heldBack: 0 } };
}

const holdBack = (state: AlertState): AlertDecision => ({ deliver: false, counted: true, state: { ...state, heldBack: state.heldBack + 1 } });
const ignore = (state: AlertState): AlertDecision => ({ deliver: false, counted: false, state });

/** The streak's first delivery comes with its Nth failure; later ones as realert_after_minutes allows. */
function onFailure(state: AlertState, streak: StreakFacts | null, now: Date): AlertDecision {
  // An event written before streaks were counted: as a rule without options.
  if (streak === null) return deliver(state, now);
  if (state.alertedEpoch !== streak.epoch) {
    return streak.failures >= state.afterConsecutiveFailures ? deliver(state, now, { alertedEpoch: streak.epoch }) : holdBack(state);
  }
  const minutes = state.realertAfterMinutes;
  if (minutes === null) return holdBack(state);
  const last = state.lastDeliveredAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  return now.getTime() - last >= minutes * 60_000 ? deliver(state, now) : holdBack(state);
}

/**
 * One event of the rule's subscription. Snoozed, a rule delivers nothing (a streak it has not
 * alerted stays unalerted, so its next failure after the snooze alerts); on_recovery speaks
 * only after a streak an on_failure rule of the job alerted.
 */
export function decideAlert(state: AlertState, input: AlertInput, now: Date): AlertDecision {
  if (input.kind === 'recovery' && (!input.alertedStreak || input.streak === null || input.streak.failures === 0)) return ignore(state);
  if (isSnoozed(state, now)) return holdBack(state);
  if (input.kind === 'failure') return onFailure(state, input.streak, now);
  return deliver(state, now);
}
