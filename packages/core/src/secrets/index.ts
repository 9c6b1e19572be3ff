// What other packages may use of secrets/; the other modules here are internal to @cronsvc/core.
export { createSecret } from './create-secret.js';
export { deleteSecret } from './delete-secret.js';
export { findSecret, listSecrets } from './secret-store.js';
export { serializeSecret } from './serialize-secret.js';
export { updateSecret } from './update-secret.js';
