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

/** GET /healthz answer. */
export interface Health {
  ok: true;
}
