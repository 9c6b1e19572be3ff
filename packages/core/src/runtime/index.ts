// What other packages may use of runtime/; the other modules here are internal to @cronsvc/core.
export { createRuntime, type Runtime } from './bootstrap.js';
export { HEARTBEAT_STALE_SECONDS, startHeartbeat, supervisedWorkers, WORKER_KINDS } from './heartbeat.js';
export { operatorEndpoints, type OperatorEndpoints } from './operator-endpoints.js';
export { repeat } from './repeat.js';
export { watchDeadWorkers } from './watch-dead-workers.js';
export { storesEnv } from './resolve-stores.js';
export { runService } from './run-service.js';
export { serviceLogger, startUp, SUPERVISED_ENV } from './start-up.js';
export { announce, localApiUrl, untilAnswering } from './startup-lines.js';
export { serveScrapes } from './supervised-metrics.js';
