import type { RequestHandler, Response } from 'express';
import { adminActor, AppError, permits, requiredScope, secretsEqual, tokenActor, type Actor, type SqlPool } from '@cronsvc/core';
import { permissionOf } from '../routes/permissions.js';
import { UNMATCHED } from '../routes/route-table.js';

function bearer(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? match[1] : null;
}

/** The caller of this request, resolved once by the API-token middleware or the console's session. */
export const actorOf = (res: Response): Actor => res.locals.actor as Actor;

/**
 * API tokens: each belongs to one workspace, which every handler scopes its queries to. The
 * lookup yields the whole actor (docs/adr/025-actor-permissions-and-audit-log.md); the workspace
 * id stays in `res.locals.workspaceId` for the handlers that read only it.
 */
export function requireApiToken(pool: SqlPool): RequestHandler {
  return async (req, res, next) => {
    const token = bearer(req.headers.authorization);
    const actor = token ? await tokenActor(pool, token) : null;
    if (!actor) throw new AppError('unauthorized', 'a valid API token is required: Authorization: Bearer <token>');
    res.locals.actor = actor;
    res.locals.workspaceId = actor.workspaceId;
    next();
  };
}

/** The admin token guards the admin API only; with ADMIN_TOKEN unset the admin API is off. */
export function requireAdminToken(adminToken: string | undefined): RequestHandler {
  return (req, _res, next) => {
    const token = bearer(req.headers.authorization);
    if (!adminToken) throw new AppError('unauthorized', 'the admin API is disabled: set ADMIN_TOKEN to enable it');
    if (!token || !secretsEqual(token, adminToken)) throw new AppError('unauthorized', 'a valid admin token is required');
    next();
  };
}

/** The admin API's actor on `workspaceId` (the workspace it changes). */
export const adminOn = (res: Response, workspaceId: string): Actor => adminActor(workspaceId, (res.locals.requestId as string | undefined) ?? null);

export type RouteOf = (method: string, path: string) => string;

/**
 * Refuses, before the handler runs, a request whose actor's scope lacks the permission its route
 * needs (apps/api/src/routes/permissions.ts): 403 `forbidden`, nothing changed. A route the
 * table lacks is refused too. A path no route matches goes on to its 404 or 405.
 */
export function requirePermission(routes: { routeOf: RouteOf; exists: (method: string, pattern: string) => boolean }, onRefused: (res: Response, message: string) => void): RequestHandler {
  return (req, res, next) => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const pattern = routes.routeOf(method, req.originalUrl.split('?')[0]);
    // No route, or the path's route lacks this method: the 404 or 405 follows.
    if (pattern === UNMATCHED || !routes.exists(method, pattern)) return next();
    const permission = permissionOf(method, pattern);
    const actor = actorOf(res);
    if (permission && permits(actor, permission)) return next();
    const needs = permission ? `scope ${requiredScope(permission)}` : 'a permission no scope has';
    onRefused(res, `this API token has scope ${actor.scope}; ${method} ${pattern} needs ${needs}`);
  };
}

/** The API's refusal: the D3 envelope through the error handler. */
export const refuseWithError = (_res: Response, message: string) => {
  throw new AppError('forbidden', message);
};
