import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Router, type RequestHandler } from 'express';
import type { ErrorEnvelope } from '@cronsvc/contracts';
import { secretsEqual, type Queues } from '@cronsvc/core';

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
 * bull-board, so an operator can see waiting, delayed, active, and recent completed and failed
 * queue jobs. Read-only (bull-board answers 405 to retry, promote, remove, clean, pause) unless
 * QUEUE_DASHBOARD_ACTIONS=true: whoever learns the dashboard's password should not be able to
 * pause the queues or drop work in flight (the reconcilers would queue it again, but not at once).
 */
export function queueDashboard(queues: Queues, options: { adminToken: string | undefined; actions: boolean }): Router {
  const adapter = new ExpressAdapter();
  adapter.setBasePath(DASHBOARD_PATH);
  const readOnlyMode = !options.actions;
  createBullBoard({ queues: queues.dashboardQueues().map((q) => new BullMQAdapter(q, { readOnlyMode })), serverAdapter: adapter });
  const router = Router();
  router.use((_req, res, next) => {
    res.set(FRAME_HEADERS);
    next();
  });
  router.use(basicAuth(options.adminToken), adapter.getRouter());
  return router;
}
