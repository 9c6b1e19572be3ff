/** What a token may do (docs/API.md, "Scopes"): `full` everything, `run` reads and runs, `read` reads. */
export const SCOPES = ['full', 'run', 'read'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * What a route needs: `read`, `run` or `write` from a token's scope, `admin` the admin token,
 * `public` nothing (the token in the path, when there is one, is checked by the route itself).
 */
export type Permission = 'read' | 'run' | 'write' | 'admin' | 'public';

export type ActorKind = 'token' | 'console' | 'admin' | 'public';

/**
 * Who is calling, resolved once per request (docs/adr/025-actor-permissions-and-audit-log.md):
 * the use cases that change something take it and record it in the audit log.
 */
export interface Actor {
  workspaceId: string;
  kind: ActorKind;
  /** The API token used, directly or through the console session it opened; null for admin and public. */
  tokenId: string | null;
  /** The token's scope; `full` for the admin token, `read` for a public caller. */
  scope: Scope;
  /** The token's name, when it has one; `admin` for the admin token. */
  name: string | null;
  requestId: string | null;
}

const GRANTED: Record<Scope, ReadonlySet<Permission>> = {
  full: new Set(['read', 'run', 'write', 'public']),
  run: new Set(['read', 'run', 'public']),
  read: new Set(['read', 'public']),
};

/** Whether an actor may use a route that needs `permission`; `admin` is the admin token's alone. */
export function permits(actor: Pick<Actor, 'kind' | 'scope'>, permission: Permission): boolean {
  if (permission === 'admin') return actor.kind === 'admin';
  return GRANTED[actor.scope].has(permission);
}

/** The smallest token scope that grants a permission, as the OpenAPI document names it (`x-required-scope`). */
export function requiredScope(permission: Permission): 'read' | 'run' | 'full' | 'admin' | 'public' {
  return permission === 'write' ? 'full' : permission;
}

/** The admin API's caller, acting on `workspaceId`. */
export const adminActor = (workspaceId: string, requestId: string | null): Actor => ({ workspaceId, kind: 'admin', tokenId: null, scope: 'full', name: 'admin', requestId });

/** Whoever holds a public link (a snooze link), acting on `workspaceId`. */
export const publicActor = (workspaceId: string, requestId: string | null): Actor => ({ workspaceId, kind: 'public', tokenId: null, scope: 'read', name: null, requestId });
