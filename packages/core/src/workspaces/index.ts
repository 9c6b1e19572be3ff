// What other packages may use of workspaces/; the other modules here are internal to @cronsvc/core.
export { clientNetwork, publicRateLimitKey, pruneRateLimitWindows } from './public-rate-limit.js';
export { createRateLimiter, type RateLimiter, type RateLimitState, type RateLimitStore } from './rate-limit.js';
export { createApiToken, createTokenSchema, listApiTokens, revokeApiToken, serializeApiToken } from './tokens.js';
export { createWorkspace, ensureBootstrapWorkspace, revokeBootstrapTokens, secretsEqual } from './workspaces.js';
