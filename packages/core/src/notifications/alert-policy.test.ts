import { decideAlert, type AlertDecision, type AlertInput, type AlertState } from './alert-policy.js';

const t0 = new Date('2030-01-01T00:00:00.000Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
const rule = (over: Partial<AlertState> = {}): AlertState => ({
  event: 'on_failure',
  afterConsecutiveFailures: 1,
  realertAfterMinutes: 0,
  snoozedUntil: null,
  lastDeliveredAt: null,
  heldBack: 0,
  alertedEpoch: null,
  ...over,
});
const failure = (failures: number, epoch = 0n): AlertInput => ({ kind: 'failure', streak: { failures, epoch } });

/** Runs events through a rule in order; answers which were delivered (with their held_back) and the last state. */
function run(state: AlertState, events: { input: AlertInput; at: Date }[]): { delivered: (number | null)[]; state: AlertState } {
  const delivered: (number | null)[] = [];
  let current = state;
  for (const e of events) {
    const d: AlertDecision = decideAlert(current, e.input, e.at);
    delivered.push(d.deliver ? d.heldBack : null);
    current = d.state;
  }
  return { delivered, state: current };
}

describe('on_failure streaks', () => {
  it('with no options delivers every failure, as a rule always did', () => {
    const { delivered } = run(rule(), [1, 2, 3].map((n) => ({ input: failure(n), at: at(n) })));
    expect(delivered).toEqual([0, 0, 0]);
  });

  it('after_consecutive_failures: the first delivery comes with the Nth failure and says how many were held back', () => {
    const { delivered, state } = run(rule({ afterConsecutiveFailures: 3, realertAfterMinutes: null }), [1, 2, 3, 4].map((n) => ({ input: failure(n), at: at(n) })));
    expect(delivered).toEqual([null, null, 2, null]);
    expect(state.heldBack).toBe(1);
    expect(state.alertedEpoch).toBe(0n);
  });

  it('a streak that ends before N failures is never alerted; the next one counts afresh', () => {
    const r = rule({ afterConsecutiveFailures: 2 });
    const { delivered } = run(r, [
      { input: failure(1, 0n), at: at(1) },
      { input: failure(1, 1n), at: at(2) },
      { input: failure(2, 1n), at: at(3) },
    ]);
    expect(delivered).toEqual([null, null, 2]);
  });

  it('realert_after_minutes: a failure of an alerted streak is delivered once that long has passed since the last delivery', () => {
    const { delivered } = run(rule({ realertAfterMinutes: 30 }), [
      { input: failure(1), at: at(0) },
      { input: failure(2), at: at(10) },
      { input: failure(3), at: at(29) },
      { input: failure(4), at: at(30) },
      { input: failure(5), at: at(40) },
    ]);
    expect(delivered).toEqual([0, null, null, 2, null]);
  });

  it('realert_after_minutes null: one delivery per streak; a new streak alerts again', () => {
    const { delivered } = run(rule({ realertAfterMinutes: null }), [
      { input: failure(1, 0n), at: at(0) },
      { input: failure(2, 0n), at: at(100) },
      { input: failure(1, 1n), at: at(200) },
    ]);
    expect(delivered).toEqual([0, null, 1]);
  });

  it('an event written before streaks were counted is delivered as without options', () => {
    expect(decideAlert(rule({ afterConsecutiveFailures: 5 }), { kind: 'failure', streak: null }, t0).deliver).toBe(true);
  });
});

describe('snooze', () => {
  it('holds everything back while snoozed; a streak not alerted yet is alerted by its next failure after', () => {
    const { delivered } = run(rule({ afterConsecutiveFailures: 2, snoozedUntil: at(60) }), [
      { input: failure(1), at: at(10) },
      { input: failure(2), at: at(20) },
      { input: failure(3), at: at(30) },
      { input: failure(4), at: at(61) },
    ]);
    expect(delivered).toEqual([null, null, null, 3]);
  });

  it('holds back other events too, and delivers once the snooze has passed', () => {
    const other: AlertInput = { kind: 'other' };
    const { delivered } = run(rule({ event: 'on_missed', snoozedUntil: at(5) }), [
      { input: other, at: at(1) },
      { input: other, at: at(5) },
    ]);
    expect(delivered).toEqual([null, 1]);
  });
});

describe('on_recovery', () => {
  const recovery = (alertedStreak: boolean, failures = 3): AlertInput => ({ kind: 'recovery', streak: { failures, epoch: 0n }, alertedStreak });
  const r = rule({ event: 'on_recovery' });

  it('speaks after a streak an on_failure rule alerted', () => {
    expect(decideAlert(r, recovery(true), t0)).toMatchObject({ deliver: true, heldBack: 0 });
  });

  it('never without an earlier failure message, nor after a success that ended no streak, and does not count those as held back', () => {
    expect(decideAlert(r, recovery(false), t0)).toEqual({ deliver: false, counted: false, state: r });
    expect(decideAlert(r, recovery(true, 0), t0)).toEqual({ deliver: false, counted: false, state: r });
    expect(decideAlert(r, { kind: 'recovery', streak: null, alertedStreak: true }, t0).deliver).toBe(false);
  });

  it('is held back while snoozed', () => {
    expect(decideAlert({ ...r, snoozedUntil: at(1) }, recovery(true), t0)).toMatchObject({ deliver: false, counted: true });
  });
});
