// What other packages may use of access/ (docs/adr/025-actor-permissions-and-audit-log.md): the
// actor, the credentials it is resolved from, and the audit log.
export { type Actor, type ActorKind, adminActor, type Permission, permits, requiredScope, type Scope } from './actor.js';
export { type AuditEntry, listAuditEvents, pruneAuditEvents, serializeAuditEvent, writeAudit } from './audit.js';
export {
  consoleActor, type ConsoleSession, endConsoleSession, findConsoleSession, openConsoleSession, SESSION_LIFETIME_MS, tokenActor
} from './credentials.js';
