// What other packages may use of http/; the other modules here are internal to @cronsvc/core.
export { createHttpClient, type HttpClient, type HttpResult } from './http-client.js';
export { traceIdOf, traceparent, TRACEPARENT_HEADER } from './traceparent.js';
