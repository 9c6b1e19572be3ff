// What other packages may use of deps/; the other modules here are internal to @cronsvc/core.
export { type Clock, type Deps } from './deps.js';
