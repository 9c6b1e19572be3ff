// What other packages may use of runtime/; the other modules here are internal to @cronsvc/core.
export { createRuntime, type Runtime, serviceLogger } from './bootstrap.js';
export { storesEnv } from './resolve-stores.js';
export { runService, startUp, SUPERVISED_ENV } from './run-service.js';
