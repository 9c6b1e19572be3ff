// What other packages may use of config/; the other modules here are internal to @cronsvc/core.
export { loadConfig, type QueueBackendName } from './config.js';
