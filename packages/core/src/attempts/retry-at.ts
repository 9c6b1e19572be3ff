import type { HttpResult } from '../http/http-client.js';
import { parseRetryAfterMs } from '../http/retry-after.js';

/** What, beyond the attempt's number, decides when a retry is due. */
export interface RetryTiming {
  /** When the answer came, on the executor's clock. */
  now: Date;
  /** RETRY_AFTER_MAX_SECONDS in ms: a Retry-After longer than this is taken as this. */
  retryAfterMaxMs: number;
  /** A workflow run's deadline: no retry of its steps is due after it. Unset for request jobs. */
  deadline?: Date | null;
  random?: () => number;
}

/** Statuses whose Retry-After asks this service to wait before calling the host again. */
const ASKS_TO_WAIT = new Set([429, 503]);

/** Delay before attempt n+1: 250 ms x 2^n, times a random factor in [0.8, 1.2]. */
export function backoffMs(attemptNumber: number, random: () => number = Math.random): number {
  return Math.round(250 * 2 ** attemptNumber * (0.8 + 0.4 * random()));
}

/**
 * Until when the host asked to be left alone: a 429 or 503 answer with a readable Retry-After
 * (seconds or an HTTP date), capped at `retryAfterMaxMs`. Null for any other answer, and for a
 * Retry-After of 0.
 */
export function hostCooldownUntil(result: HttpResult, timing: Pick<RetryTiming, 'now' | 'retryAfterMaxMs'>): Date | null {
  if (result.kind !== 'response' || !ASKS_TO_WAIT.has(result.statusCode)) return null;
  const ms = parseRetryAfterMs(result.allHeaders['retry-after'], timing.now);
  if (ms === null || ms <= 0) return null;
  return new Date(timing.now.getTime() + Math.min(ms, timing.retryAfterMaxMs));
}

/**
 * When attempt n+1 is due, computed once for every kind of job: the policy's backoff, or the host's
 * cool-down when it ends later (Retry-After never shortens a backoff), and never after a workflow's
 * deadline (the next turn then times the run out).
 */
export function retryAt(attemptNumber: number, timing: RetryTiming, cooldownUntil: Date | null): Date {
  const backoff = timing.now.getTime() + backoffMs(attemptNumber, timing.random);
  const due = Math.max(backoff, cooldownUntil?.getTime() ?? 0);
  return new Date(timing.deadline ? Math.min(due, timing.deadline.getTime()) : due);
}
