// A typed client of the public /v1 API on the global fetch: no server code, so the CLI starts fast.
export { createClient, type CronsvcClient } from './client.js';
export { ApiError, NetworkError } from './errors.js';
export { buildUrl, type HttpOptions } from './http.js';
export type { ChannelTestFailure, RuleOwner } from './endpoints/notifications.js';
