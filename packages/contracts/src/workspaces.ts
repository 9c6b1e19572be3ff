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

/** POST /admin/v1/workspaces/:id/tokens answer; the token is shown this once. */
export interface ApiTokenCreated {
  id: string;
  api_token: string;
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
