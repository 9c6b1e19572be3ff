import type { Permission } from '@cronsvc/core';

/**
 * What every route of the app needs, keyed by `METHOD /express/pattern` (docs/API.md, "Scopes";
 * docs/adr/025-actor-permissions-and-audit-log.md): `read`, `run` or `write` from the scope of
 * the API token (or of the token the console session was opened with), `admin` the admin token,
 * `public` no API token. The API and the console refuse a route the caller's scope lacks with 403
 * before it runs, and a route missing here is refused too. A test checks this table against
 * Express's routes and the OpenAPI document (whose `x-required-scope` is derived from it), so a
 * route added without a line fails it. Add a new area's routes as a block of their own.
 */
export const ROUTE_PERMISSIONS: Readonly<Record<string, Permission>> = {
  // Operator endpoints and the API's documents.
  'GET /healthz': 'public',
  'GET /readyz': 'public',
  'GET /metrics': 'admin',
  'GET /v1/openapi.json': 'public',
  'GET /docs': 'public',
  'GET /docs/init.js': 'public',
  'GET /docs/swagger-ui.css': 'public',
  'GET /docs/swagger-ui-bundle.js': 'public',
  'GET /docs/favicon-32x32.png': 'public',

  // Public endpoints: the token in the path is the credential.
  'POST /v1/triggers/:token': 'public',
  'GET /v1/ping/:token': 'public',
  'POST /v1/ping/:token': 'public',
  'GET /v1/ping/:token/start': 'public',
  'POST /v1/ping/:token/start': 'public',
  'GET /v1/ping/:token/fail': 'public',
  'POST /v1/ping/:token/fail': 'public',
  'GET /v1/ping/:token/:exit_status': 'public',
  'POST /v1/ping/:token/:exit_status': 'public',
  'POST /v1/resume/:token': 'public',
  'GET /v1/approvals/:token': 'public',
  'POST /v1/approvals/:token/approve': 'public',
  'POST /v1/approvals/:token/reject': 'public',
  'GET /v1/snooze/:token': 'public',
  'POST /v1/snooze/:token': 'public',
  'GET /v1/badges/:token': 'public',
  'GET /v1/status/:token': 'public',

  // The admin API.
  'POST /admin/v1/workspaces': 'admin',
  'POST /admin/v1/workspaces/:id/tokens': 'admin',
  'DELETE /admin/v1/tokens/:id': 'admin',

  // Jobs.
  'POST /v1/jobs': 'write',
  'POST /v1/jobs/import': 'write',
  'POST /v1/jobs/apply': 'write',
  'GET /v1/jobs/export': 'read',
  'GET /v1/jobs': 'read',
  'GET /v1/jobs/:id': 'read',
  'PATCH /v1/jobs/:id': 'write',
  'DELETE /v1/jobs/:id': 'write',
  'POST /v1/jobs/:id/pause': 'run',
  'POST /v1/jobs/:id/resume': 'run',
  'POST /v1/jobs/:id/run-now': 'run',
  'GET /v1/jobs/:id/context': 'read',
  'PATCH /v1/jobs/:id/context': 'write',
  'GET /v1/jobs/:id/executions': 'read',
  'GET /v1/jobs/:id/fires': 'read',
  'GET /v1/jobs/:id/stats': 'read',
  'POST /v1/jobs/:id/badge/rotate': 'write',
  'GET /v1/jobs/:id/notification-rules': 'read',
  'POST /v1/jobs/:id/notification-rules': 'write',
  'DELETE /v1/jobs/:id/notification-rules/:rule_id': 'write',

  // Tags.
  'GET /v1/tags': 'read',
  'POST /v1/tags/:tag/pause': 'run',
  'POST /v1/tags/:tag/resume': 'run',

  // Executions, fires and dead letters.
  'GET /v1/executions': 'read',
  'GET /v1/executions/:id': 'read',
  'POST /v1/executions/:id/replay': 'run',
  'POST /v1/executions/:id/park': 'run',
  'POST /v1/executions/:id/resume': 'run',
  'GET /v1/executions/:id/notifications': 'read',
  'GET /v1/fires': 'read',
  'GET /v1/dlq': 'read',
  'GET /v1/dlq/stats': 'read',
  'POST /v1/dlq/replay-batch': 'run',
  'POST /v1/dlq/purge': 'write',
  'POST /v1/dlq/:id/replay': 'run',
  'DELETE /v1/dlq/:id': 'write',

  // Secrets and the signing key.
  'POST /v1/secrets': 'write',
  'GET /v1/secrets': 'read',
  'GET /v1/secrets/:id': 'read',
  'PATCH /v1/secrets/:id': 'write',
  'DELETE /v1/secrets/:id': 'write',
  'GET /v1/signing-key': 'read',
  'POST /v1/signing-key/rotate': 'write',

  // Notifications.
  'GET /v1/notification-deliveries': 'read',
  'POST /v1/notification-deliveries/:id/retry': 'write',
  'POST /v1/notification-channels': 'write',
  'GET /v1/notification-channels': 'read',
  'GET /v1/notification-channels/:id': 'read',
  'PATCH /v1/notification-channels/:id': 'write',
  'DELETE /v1/notification-channels/:id': 'write',
  'POST /v1/notification-channels/:id/test': 'write',
  'GET /v1/notification-rules/:id': 'read',
  'POST /v1/notification-rules/:id/snooze': 'write',
  'POST /v1/notification-rules/:id/unsnooze': 'write',

  // Monitors.
  'POST /v1/monitors': 'write',
  'GET /v1/monitors': 'read',
  'GET /v1/monitors/:id': 'read',
  'GET /v1/monitors/:id/pings': 'read',
  'POST /v1/monitors/:id/badge/rotate': 'write',
  'PATCH /v1/monitors/:id': 'write',
  'DELETE /v1/monitors/:id': 'write',
  'POST /v1/monitors/:id/pause': 'run',
  'POST /v1/monitors/:id/resume': 'run',
  'GET /v1/monitors/:id/notification-rules': 'read',
  'POST /v1/monitors/:id/notification-rules': 'write',
  'DELETE /v1/monitors/:id/notification-rules/:rule_id': 'write',

  // Status pages.
  'POST /v1/status-pages': 'write',
  'GET /v1/status-pages': 'read',
  'GET /v1/status-pages/:id': 'read',
  'PATCH /v1/status-pages/:id': 'write',
  'DELETE /v1/status-pages/:id': 'write',

  // Host limits.
  'GET /v1/host-limits': 'read',
  'GET /v1/host-limits/:host': 'read',
  'PUT /v1/host-limits/:host': 'write',
  'DELETE /v1/host-limits/:host': 'write',

  // Tokens and the audit log.
  'POST /v1/tokens': 'write',
  'GET /v1/tokens': 'read',
  'DELETE /v1/tokens/:id': 'write',
  'GET /v1/audit-events': 'read',

  // The console: signing in and its assets need no session; every page past sign-in needs the
  // permission of the API route it stands for, and a form that only writes (a new or edited job,
  // an import) needs what its POST needs.
  'GET /console/assets/:file': 'public',
  'GET /console/sign-in': 'public',
  'POST /console/sign-in': 'public',
  'GET /console': 'read',
  'POST /console/sign-out': 'read',
  'GET /console/jobs/import': 'write',
  'POST /console/jobs/import': 'write',
  'GET /console/jobs': 'read',
  'GET /console/jobs/new': 'write',
  'POST /console/jobs': 'write',
  'GET /console/jobs/:id': 'read',
  'GET /console/jobs/:id/edit': 'write',
  'POST /console/jobs/:id': 'write',
  'POST /console/jobs/:id/run-now': 'run',
  'POST /console/jobs/:id/pause': 'run',
  'POST /console/jobs/:id/resume': 'run',
  'POST /console/jobs/:id/delete': 'write',
  'POST /console/jobs/:id/rules': 'write',
  'POST /console/jobs/:id/rules/:ruleId/delete': 'write',
  'POST /console/tags/:tag/pause': 'run',
  'POST /console/tags/:tag/resume': 'run',
  'GET /console/executions': 'read',
  'GET /console/executions/:id': 'read',
  'POST /console/executions/:id/replay': 'run',
  'GET /console/dead-letters': 'read',
  'POST /console/dead-letters/replay-job': 'run',
  'POST /console/dead-letters/purge': 'write',
  'POST /console/dead-letters/:id/replay': 'run',
  'POST /console/dead-letters/:id/remove': 'write',
  'GET /console/monitors': 'read',
  'POST /console/monitors': 'write',
  'POST /console/monitors/:id/pause': 'run',
  'POST /console/monitors/:id/resume': 'run',
  'POST /console/monitors/:id/delete': 'write',
  'GET /console/monitors/:id': 'read',
  'POST /console/monitors/:id': 'write',
  'POST /console/monitors/:id/rules': 'write',
  'POST /console/monitors/:id/rules/:ruleId/delete': 'write',
  'GET /console/channels': 'read',
  'POST /console/channels/monitor-rules': 'write',
  'POST /console/channels/:id/test': 'write',
  'POST /console/channels': 'write',
  'POST /console/channels/:id': 'write',
  'POST /console/channels/rules/:ruleId/snooze': 'write',
  'POST /console/channels/rules/:ruleId/unsnooze': 'write',
  'GET /console/hosts': 'read',
  'POST /console/hosts': 'write',
  'POST /console/hosts/delete': 'write',
  'GET /console/secrets': 'read',
  'POST /console/secrets': 'write',
  'GET /console/secrets/:id': 'read',
  'POST /console/secrets/:id': 'write',
  'POST /console/secrets/:id/delete': 'write',
  'GET /console/tokens': 'read',
  'POST /console/tokens': 'write',
  'POST /console/tokens/:id/delete': 'write',
  'GET /console/audit': 'read',
  'GET /console/status-pages': 'read',
  'POST /console/status-pages': 'write',
  'GET /console/status-pages/:id': 'read',
  'POST /console/status-pages/:id': 'write',
  'POST /console/status-pages/:id/delete': 'write',
};

/** The permission of a route (method and Express pattern); undefined when the table lacks it. */
export function permissionOf(method: string, pattern: string): Permission | undefined {
  return ROUTE_PERMISSIONS[`${method === 'HEAD' ? 'GET' : method} ${pattern}`];
}
