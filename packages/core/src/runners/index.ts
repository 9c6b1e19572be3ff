// What other packages may use of runners/; the other modules here are internal to @cronsvc/core.
export { ClaimsInHand } from './claims-in-hand.js';
export { runAttempt } from './run-attempt.js';
export type { RunOutcome, RunnerDeps } from './runner.js';
