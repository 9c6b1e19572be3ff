// What other packages may use of hosts/; the other modules here are internal to @cronsvc/core.
export { hostOf } from './gate-decision.js';
export { HostGate } from './host-gate.js';
export { postgresHostLimiter, redisHostLimiter, type HostLimiter } from './host-limiter.js';
export {
  deleteHostLimit, findHostLimit, hostCooldowns, hostLimitQuerySchema, type HostLimitRow, hostLimitSchema, listHostLimits, putHostLimit,
  serializeHostLimit
} from './host-limits.js';
