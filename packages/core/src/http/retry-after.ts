/**
 * A Retry-After header's delay: whole seconds, or an HTTP date (a date in the past is 0). Null when
 * the header is absent or unreadable. Not capped: each reader caps it by its own rule (deliveries
 * by the hour of docs/NOTIFICATIONS.md, attempts by RETRY_AFTER_MAX_SECONDS).
 */
export function parseRetryAfterMs(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its day and month; Date.parse alone would take "-5" for a year.
  const at = /[A-Za-z]/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}
