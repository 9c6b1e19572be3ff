import type { OutboundRequest } from './http-client.js';

export { traceIdOf, traceparent } from '../tracing/trace-ids.js';

/** The W3C Trace Context header every outbound request carries (docs/OPERATIONS.md, "Traces"). */
export const TRACEPARENT_HEADER = 'traceparent';

/** The request with our `traceparent`: one the job set itself (in any case) is replaced. */
export function withTraceparent(request: OutboundRequest, value: string): OutboundRequest {
  const kept = Object.entries(request.headers).filter(([name]) => name.toLowerCase() !== TRACEPARENT_HEADER);
  return { ...request, headers: { ...Object.fromEntries(kept), [TRACEPARENT_HEADER]: value } };
}
