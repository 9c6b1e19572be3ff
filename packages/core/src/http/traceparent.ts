import { createHash, randomBytes } from 'node:crypto';
import type { OutboundRequest } from './http-client.js';

/** The W3C Trace Context header every outbound request carries (docs/OPERATIONS.md, "Traces"). */
export const TRACEPARENT_HEADER = 'traceparent';

/**
 * The trace id of everything sent for `key` (an execution id; a delivery's own id when it has no
 * execution): 32 hex digits derived from it, so that every attempt, step, callback and
 * notification of one execution shares one trace, in whichever process sends it, without the id
 * being stored, and different executions have different traces.
 */
export function traceIdOf(key: string): string {
  return createHash('sha256').update(`cronsvc-trace:${key}`).digest('hex').slice(0, 32);
}

/**
 * A `traceparent` (version 00) for one request of the trace of `key`: a span id of its own for
 * each call (each attempt is a span), and the trace flags unset, since the service records no
 * spans of its own unless it exports them.
 */
export function traceparent(key: string): string {
  return `00-${traceIdOf(key)}-${randomBytes(8).toString('hex')}-00`;
}

/** The request with our `traceparent`: one the job set itself (in any case) is replaced. */
export function withTraceparent(request: OutboundRequest, value: string): OutboundRequest {
  const kept = Object.entries(request.headers).filter(([name]) => name.toLowerCase() !== TRACEPARENT_HEADER);
  return { ...request, headers: { ...Object.fromEntries(kept), [TRACEPARENT_HEADER]: value } };
}
