// What other packages may use of runtime/; the other modules here are internal to @cronsvc/core.
export { createRuntime, type Runtime } from './bootstrap.js';
export { storesEnv } from './resolve-stores.js';
export { runService } from './run-service.js';
export { serviceLogger, startUp, SUPERVISED_ENV } from './start-up.js';
