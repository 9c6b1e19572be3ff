// @cronsvc/core/start-up: what the supervisor of `npm start` needs to find the stores and prepare
// the database, without the rest of core (Prisma, BullMQ, the HTTP client), which its children
// load: the supervisor stays small while it waits on them.
export { markProcess } from './metrics/families.js';
export { childNodeOptions } from './runtime/child-node-options.js';
export { startHeartbeat, supervisedWorkers, WORKER_KINDS } from './runtime/heartbeat.js';
export { storesEnv } from './runtime/resolve-stores.js';
export { startUp, SUPERVISED_ENV } from './runtime/start-up.js';
export { announce, localApiUrl, untilAnswering } from './runtime/startup-lines.js';
export { countStops, HAND_BACK_MS, stopNotice, stoppedNotice, stopOnSignals, type Stoppable } from './runtime/stop-signals.js';
export { serveScrapes } from './runtime/supervised-metrics.js';
