import type { HttpResult } from '../http/http-client.js';

/** Statuses a retry cannot fix (DECISIONS D8, webhook-style receivers). */
const PERMANENT_STATUSES = new Set([400, 401, 403, 404, 410, 413, 422]);

export type DeliveryVerdict =
  | { outcome: 'sent' }
  | { outcome: 'failed'; error: string }
  | { outcome: 'retry'; error: string; delayMs: number };

/** 1 s x 2^(n-1) after attempt n, times a random factor in [0.8, 1.2] (D8). */
export function deliveryBackoffMs(attempt: number, random: () => number = Math.random): number {
  return Math.round(1000 * 2 ** (attempt - 1) * (0.8 + 0.4 * random()));
}

/** Retry-After in seconds or as an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

/**
 * Sent on 2xx; failed at once on a permanent status or a refused target; otherwise retried
 * with backoff (a 429's Retry-After wins) until `maxAttempts` are used.
 */
export function decideDelivery(result: HttpResult, attempt: number, maxAttempts: number, now: Date, random?: () => number): DeliveryVerdict {
  if (result.kind === 'response' && result.statusCode >= 200 && result.statusCode < 300) return { outcome: 'sent' };
  const error = result.kind === 'response' ? `receiver answered ${result.statusCode}` : `${result.errorClass}: ${result.message}`;
  const permanent = result.kind === 'response' ? PERMANENT_STATUSES.has(result.statusCode) : result.errorClass === 'BLOCKED_TARGET';
  if (permanent || attempt >= maxAttempts) return { outcome: 'failed', error };
  const hinted = result.kind === 'response' && result.statusCode === 429 ? retryAfterMs(result.allHeaders['retry-after'], now) : null;
  return { outcome: 'retry', error, delayMs: hinted ?? deliveryBackoffMs(attempt, random) };
}
