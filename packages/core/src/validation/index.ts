// What other packages may use of validation/; the other modules here are internal to @cronsvc/core.
export { MAX_REQUEST_JSON_DEPTH, requestTooDeep, textNestedDeeperThan } from './json-depth.js';
export { holdsUnstorableText, storableJsonText, storableText, storableValue } from './storable-text.js';
export { validate } from './validate.js';
