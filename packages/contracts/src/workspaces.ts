/** Body of POST /admin/v1/workspaces. */
export interface WorkspaceInput {
  name: string;
}

/** POST /admin/v1/workspaces answer: the workspace with its first API token, shown this once. */
export interface WorkspaceCreated {
  id: string;
  name: string;
  api_token: string;
  created_at: string;
  updated_at: string;
}

/** What an API token may do: `full` everything, `run` reads and runs, `read` reads only. */
export type TokenScope = 'full' | 'run' | 'read';

/** POST /v1/tokens and POST /admin/v1/workspaces/:id/tokens answer; the token is shown this once. */
export interface ApiTokenCreated {
  id: string;
  name: string | null;
  scope: TokenScope;
  expires_at: string | null;
  api_token: string;
  created_at: string;
}

/** An item of GET /v1/tokens: never the token itself. */
export interface ApiToken {
  id: string;
  name: string | null;
  scope: TokenScope;
  /** The token's first 12 characters; null for a token made before they were kept. */
  prefix: string | null;
  created_at: string;
  /** Set within seconds of the first use, then refreshed at most once a minute. */
  last_used_at: string | null;
  expires_at: string | null;
}

/** An item of GET /v1/audit-events: a change, and who made it. Names of fields, never values. */
export interface AuditEvent {
  id: string;
  /** `<object>.<verb>`, e.g. `job.updated`. */
  action: string;
  target_type: string;
  target_id: string | null;
  actor: { type: 'token' | 'console' | 'admin' | 'public'; token_id: string | null; name: string | null };
  request_id: string | null;
  changed_fields: string[];
  created_at: string;
}

/** GET /healthz answer, while the process runs. */
export interface Health {
  status: 'ok';
}

/** One readiness check: `ok`, or `fail: <reason>`. */
export type ReadinessCheck = 'ok' | `fail: ${string}`;

/**
 * GET /readyz answer: 200 when every check is ok, else 503. The checks are `database`, `queues`
 * and `migrations`, and `scheduler`, `executor` and `notifier` for the workers a process answers for.
 */
export interface Readiness {
  status: 'ready' | 'not_ready';
  checks: { [name: string]: ReadinessCheck };
}
