import { parseRetryAfterMs } from '../http/retry-after.js';

/** Attempts of one round of a delivery (docs/NOTIFICATIONS.md, "Deliveries"); a retry of a failed delivery starts a new round. */
export const DELIVERY_ATTEMPTS = 5;

/** A Retry-After longer than this is taken as this: a receiver cannot park a delivery for days. */
export const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;

/** How an adapter judges the answer to one send. */
export type Classification = 'sent' | 'transient' | 'permanent';

/** What one send produced, whatever the channel type. */
export interface SendResult {
  /** The receiver's HTTP status (for email, the SMTP reply code); null when no answer came. */
  statusCode: number | null;
  /** Why it was not delivered, readable and free of secret values; null when it was. */
  error: string | null;
  /** The delay a 429 asked for (Retry-After, or the provider's own field), in ms, clamped; else null. */
  retryAfterMs: number | null;
  /** A failure no retry can fix that has no status (a refused target, a missing setting). */
  unrecoverable?: boolean;
}

export type DeliveryVerdict =
  | { outcome: 'sent' }
  | { outcome: 'failed'; error: string }
  | { outcome: 'retry'; error: string; delayMs: number };

/** 1 s x 2^(n-1) after attempt n, times a random factor in [0.8, 1.2]. */
export function deliveryBackoffMs(attempt: number, random: () => number = Math.random): number {
  return Math.round(1000 * 2 ** (attempt - 1) * (0.8 + 0.4 * random()));
}

/** Retry-After in seconds or as an HTTP date (http/retry-after.ts), clamped to [0, MAX_RETRY_AFTER_MS]; null when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: Date): number | null {
  const ms = parseRetryAfterMs(value, now);
  return ms === null ? null : Math.min(MAX_RETRY_AFTER_MS, ms);
}

/**
 * Sent; failed at once when permanent or when this was the last attempt of the round; otherwise
 * retried after the backoff, or after the delay a 429 asked for.
 */
export function decideDelivery(result: SendResult, classification: Classification, attempt: number, random?: () => number): DeliveryVerdict {
  if (classification === 'sent') return { outcome: 'sent' };
  const error = result.error ?? 'not delivered';
  if (classification === 'permanent' || attempt >= DELIVERY_ATTEMPTS) return { outcome: 'failed', error };
  const hinted = result.statusCode === 429 ? result.retryAfterMs : null;
  return { outcome: 'retry', error, delayMs: hinted ?? deliveryBackoffMs(attempt, random) };
}
