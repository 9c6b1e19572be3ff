// What other packages may use of ids/; the other modules here are internal to @cronsvc/core.
export { hashToken, newId } from './ids.js';
