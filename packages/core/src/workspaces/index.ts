// What other packages may use of workspaces/; the other modules here are internal to @cronsvc/core.
export { createRateLimiter, type RateLimitStore } from './rate-limit.js';
export { workspaceForToken } from './token-workspace.js';
export { createApiToken, createWorkspace, ensureBootstrapWorkspace, revokeApiToken, secretsEqual } from './workspaces.js';
