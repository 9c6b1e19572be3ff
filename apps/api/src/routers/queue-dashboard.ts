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

/** bull-board, so an operator can see waiting, delayed, active and failed queue jobs. */
export function queueDashboard(queues: Queues, adminToken: string | undefined): Router {
  const adapter = new ExpressAdapter();
  adapter.setBasePath(DASHBOARD_PATH);
  createBullBoard({ queues: queues.dashboardQueues().map((q) => new BullMQAdapter(q, { readOnlyMode: false })), serverAdapter: adapter });
  const router = Router();
  router.use(basicAuth(adminToken), adapter.getRouter());
  return router;
}
