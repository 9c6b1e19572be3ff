import { Router } from 'express';
import { listAuditEvents, serializeAuditEvent } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { actorOf } from '../middleware/auth.js';

/** The workspace's audit log (docs/API.md, "Audit log"), newest first. */
export function auditEventsRouter(deps: ApiDeps): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    const page = await listAuditEvents(deps, actorOf(res).workspaceId, req.query);
    res.json({ ...page, data: page.data.map(serializeAuditEvent) });
  });
  return router;
}
