// What other packages may use of access/ (docs/adr/025-actor-permissions-and-audit-log.md): the
// actor, the credentials it is resolved from, and the audit log.
export { type Actor, type ActorKind, adminActor, type Permission, PERMISSIONS, permits, publicActor, requiredScope, type Scope, SCOPES } from './actor.js';
export {
  type AuditEntry, type AuditEventRow, auditQuerySchema, fieldsOf, listAuditEvents, withAudit, pruneAuditEvents, serializeAuditEvent, writeAudit
} from './audit.js';
export {
  consoleActor, type ConsoleSession, endConsoleSession, findConsoleSession, openConsoleSession, SESSION_LIFETIME_MS, tokenActor, workspaceForToken
} from './credentials.js';
