// What other packages may use of logging/; the other modules here are internal to @cronsvc/core.
export { createLogger, type Logger } from './logger.js';
