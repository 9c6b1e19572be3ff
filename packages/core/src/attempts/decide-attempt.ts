import type { AttemptStatus, ErrorClass, HttpErrorClass, RequestSpec, RetryPolicy } from '@cronsvc/contracts';
import type { HttpResult } from '../http/http-client.js';
import { hostCooldownUntil, retryAt, type RetryTiming } from './retry-at.js';
import { checkAssertions, type CheckOptions } from './response-assertions.js';
import { matchResponse } from './response-matcher.js';

/**
 * succeeded and failed end the execution; retry schedules the next attempt at `retryAt`
 * (retry-at.ts: backoff, Retry-After, deadline). Only a success has no error class.
 */
export type AttemptVerdict =
  | { status: AttemptStatus; errorClass: null; errorMessage: string | null; outcome: 'succeeded' }
  | { status: AttemptStatus; errorClass: ErrorClass; errorMessage: string | null; outcome: 'failed' }
  | { status: AttemptStatus; errorClass: ErrorClass; errorMessage: string | null; outcome: 'retry'; retryAt: Date };

// Transport failures that another try cannot fix: the target is refused by policy.
const FINAL_TRANSPORT = new Set(['BLOCKED_TARGET']);

export function httpErrorClass(statusCode: number): HttpErrorClass {
  return `HTTP_${Math.floor(statusCode / 100)}XX` as HttpErrorClass;
}

/**
 * Success, retry or failure of one attempt (docs/JOBS.md, "Retry policy" and "How responses are checked"): timeouts and
 * connection errors are retried, a status in retry_on_statuses is retried, any other status
 * outside success_statuses fails at once; no retry once max_attempts are used. Only a success
 * status is matched against the body: matching never rescues a failed status, and a response
 * that fails matching or an assertion fails at once as RESPONSE_MISMATCH.
 */
export function decideAttempt(
  result: HttpResult,
  bodyText: string,
  request: Pick<RequestSpec, 'success_statuses' | 'response_matcher' | 'response_assertions'>,
  retry: RetryPolicy,
  attemptNumber: number,
  checks: CheckOptions,
  timing: RetryTiming,
): AttemptVerdict {
  const attemptsLeft = attemptNumber < retry.max_attempts;
  const unless = (retryable: boolean) =>
    retryable && attemptsLeft ? { outcome: 'retry' as const, retryAt: retryAt(attemptNumber, timing, hostCooldownUntil(result, timing)) } : { outcome: 'failed' as const };
  if (result.kind === 'error') {
    const status: AttemptStatus = result.errorClass === 'TIMEOUT' ? 'TIMEOUT' : 'CONNECTION_ERROR';
    return { status, errorClass: result.errorClass, errorMessage: result.message, ...unless(!FINAL_TRANSPORT.has(result.errorClass)) };
  }
  if (!request.success_statuses.includes(result.statusCode)) {
    return {
      status: 'HTTP_ERROR',
      errorClass: httpErrorClass(result.statusCode),
      errorMessage: `status ${result.statusCode} is not a success status`,
      ...unless(retry.retry_on_statuses.includes(result.statusCode)),
    };
  }
  const matched = matchResponse(request.response_matcher, bodyText);
  if (!matched.ok) return mismatch(matched.reason);
  const asserted = checkAssertions(request.response_assertions, { statusCode: result.statusCode, headers: result.allHeaders, bodyText }, checks);
  if (!asserted.ok) return mismatch(`assertions failed: ${asserted.failures.join('; ')}`);
  return { status: 'SUCCESS', errorClass: null, errorMessage: null, outcome: 'succeeded' };
}

function mismatch(message: string): AttemptVerdict {
  return { status: 'HTTP_ERROR', errorClass: 'RESPONSE_MISMATCH', errorMessage: message, outcome: 'failed' };
}

