// What other packages may use of errors/; the other modules here are internal to @cronsvc/core.
export { AppError } from './app-error.js';
export { isUnavailable } from './unavailable.js';
