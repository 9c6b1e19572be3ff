// What other packages may use of metrics/; the other modules here are internal to @cronsvc/core.
export { fairShareDeferrals, heldBackExecutions, httpRequestDuration, httpRequests, markProcess } from './families.js';
export { observeDelivery } from './observe.js';
export { processRegistry } from './registry.js';
