// What other packages may use of ids/; the other modules here are internal to @cronsvc/core.
export { newId } from './ids.js';
