import { Router, type RequestHandler } from 'express';
import type { ErrorEnvelope } from '@cronsvc/contracts';
import { secretsEqual } from '@cronsvc/core';

/** Where the queue dashboard (queue-dashboard.ts) is mounted. */
export const DASHBOARD_PATH = '/admin/queues';

/** HTTP basic auth, any user name, password = ADMIN_TOKEN ; off without ADMIN_TOKEN (docs/OPERATIONS.md). */
function basicAuth(adminToken: string | undefined): RequestHandler {
  return (req, res, next) => {
    const match = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const decoded = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
    const password = decoded.slice(decoded.indexOf(':') + 1);
    if (adminToken && match && decoded.includes(':') && secretsEqual(password, adminToken)) return next();
    res.set('WWW-Authenticate', 'Basic realm="queues", charset="UTF-8"');
    const body: ErrorEnvelope = { error: { code: 'unauthorized', message: 'the queue dashboard needs the admin token as the basic-auth password' } };
    res.status(401).json(body);
  };
}

// The dashboard is never shown inside another site's frame (clickjacking its buttons).
const FRAME_HEADERS = { 'Content-Security-Policy': "frame-ancestors 'none'", 'X-Frame-Options': 'DENY' };

/**
 * What comes before the queue dashboard: its headers and the admin token. Apart from the
 * dashboard, which is built on its first request, so that only an operator who signed in with
 * the admin token makes this process load bull-board.
 */
export function dashboardGate(adminToken: string | undefined): Router {
  const router = Router();
  router.use((_req, res, next) => {
    res.set(FRAME_HEADERS);
    next();
  });
  router.use(basicAuth(adminToken));
  return router;
}
