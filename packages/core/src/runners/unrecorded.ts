import type { AttemptVerdict } from '../attempts/decide-attempt.js';
import { MAX_UNRECORDED_CLAIMS } from '../executions/claim-attempt.js';

/**
 * When an attempt's outcome cannot be stored. A value PostgreSQL refuses (SQLSTATE class 22,
 * data exception; 54, a program limit such as a row too large) is refused again on every try,
 * so the attempt is recorded at once as failed without what could not be stored. Any other
 * failure (a lost connection) leaves the claim to lapse: another claim sends the attempt again,
 * up to MAX_UNRECORDED_CLAIMS times, and then the execution ends failed as well.
 */
export function isUnstorable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('54'));
}

export function unstorableVerdict(error: unknown): AttemptVerdict {
  return {
    status: 'CONNECTION_ERROR',
    errorClass: 'RECORD_FAILED',
    errorMessage: `the attempt's outcome could not be stored (${(error as Error).message}); it is not sent again`,
    outcome: 'failed',
  };
}

export function tooManyClaimsVerdict(claims: number): AttemptVerdict {
  return {
    status: 'CONNECTION_ERROR',
    errorClass: 'RECORD_FAILED',
    errorMessage: `this attempt was started ${claims - 1} times and its outcome was never stored (the most is ${MAX_UNRECORDED_CLAIMS}); it is not sent again`,
    outcome: 'failed',
  };
}
