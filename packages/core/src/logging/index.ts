// What other packages may use of logging/; the other modules here are internal to @cronsvc/core.
export { withLogContext } from './log-context.js';
export { createLogger, type Logger } from './logger.js';
