import type { RequestHandler } from 'express';
import { AppError, secretsEqual, workspaceForToken, type SqlPool } from '@cronsvc/core';

function bearer(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? match[1] : null;
}

/** API tokens: each belongs to one workspace, which every handler scopes its queries to. */
export function requireApiToken(pool: SqlPool): RequestHandler {
  return async (req, res, next) => {
    const token = bearer(req.headers.authorization);
    const workspaceId = token ? await workspaceForToken(pool, token) : null;
    if (!workspaceId) throw new AppError('unauthorized', 'a valid API token is required: Authorization: Bearer <token>');
    res.locals.workspaceId = workspaceId;
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
