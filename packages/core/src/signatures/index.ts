// What other packages may use of signatures/; the other modules here are internal to @cronsvc/core.
export { generateSigningKey, openSigningKey, signingKeyBytes, signingKeyPlace } from './signing-key-format.js';
export { getSigningKey, loadSigningKeys, rotateSigningKey } from './signing-keys.js';
