import { executedFireOutcome, lagMs } from './fire-outcome.js';

const due = new Date('2024-01-01T00:10:00.000Z');
const after = (ms: number) => new Date(due.getTime() + ms);

describe('executedFireOutcome', () => {
  it('is pending until the first request goes out, catch-ups included', () => {
    expect(executedFireOutcome({ dueAt: due, firedAt: null, caughtUp: false }, 60_000)).toBe('pending');
    expect(executedFireOutcome({ dueAt: due, firedAt: null, caughtUp: true }, 60_000)).toBe('pending');
  });

  it('is fired up to and including the late threshold, late past it', () => {
    expect(executedFireOutcome({ dueAt: due, firedAt: after(60_000), caughtUp: false }, 60_000)).toBe('fired');
    expect(executedFireOutcome({ dueAt: due, firedAt: after(60_001), caughtUp: false }, 60_000)).toBe('late');
  });

  it('is caught_up for a window catch-up, however late', () => {
    expect(executedFireOutcome({ dueAt: due, firedAt: after(3_600_000), caughtUp: true }, 60_000)).toBe('caught_up');
  });
});

describe('lagMs', () => {
  it('measures from the due time and never goes below 0', () => {
    expect(lagMs(due, after(1234))).toBe(1234);
    expect(lagMs(due, after(-5))).toBe(0);
  });
});
