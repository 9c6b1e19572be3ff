import { createHash, randomBytes } from 'node:crypto';

/**
 * The trace id of everything sent for `key` (an execution id; a delivery's own id when it has no
 * execution): 32 hex digits derived from it, so that every attempt, step, callback and
 * notification of one execution shares one trace, in whichever process sends it, without the id
 * being stored, and different executions have different traces. Exported spans use it too
 * (docs/adr/030-spans-exported-over-otlp.md).
 */
export function traceIdOf(key: string): string {
  return createHash('sha256').update(`cronsvc-trace:${key}`).digest('hex').slice(0, 32);
}

/**
 * A `traceparent` (version 00) for one request of the trace of `key` when no span is exported: a
 * span id of its own for each call (each attempt is a span), and the trace flags unset, since
 * nothing of it is recorded. With tracing on, the exported span's own traceparent is sent instead.
 */
export function traceparent(key: string): string {
  return `00-${traceIdOf(key)}-${randomBytes(8).toString('hex')}-00`;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The ids of a version-00 `traceparent`; undefined for anything else, or the all-zero ids W3C calls invalid. */
export function parseTraceparent(value: string | undefined): { traceId: string; spanId: string } | undefined {
  const match = value === undefined ? null : TRACEPARENT.exec(value.trim());
  if (!match || /^0+$/.test(match[1]) || /^0+$/.test(match[2])) return undefined;
  return { traceId: match[1], spanId: match[2] };
}
