// What other packages may use of tracing/; otel-tracing.ts is loaded by startTracing alone.
export { parseTraceparent, traceIdOf, traceparent } from './trace-ids.js';
export { startTracing, type OpenSpan, type RequestSpan, type SpanAttributes, type Tracing } from './tracing.js';
