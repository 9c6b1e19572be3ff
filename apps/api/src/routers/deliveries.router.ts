import { Router } from 'express';
import { listDeliveries, retryDelivery, serializeDelivery } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { actorOf } from '../middleware/auth.js';

export function deliveriesRouter(deps: ApiDeps): Router {
  const router = Router();
  const ws = (res: { locals: Record<string, unknown> }) => res.locals.workspaceId as string;
  router.get('/', async (req, res) => {
    const page = await listDeliveries(deps, ws(res), req.query);
    res.json({ ...page, data: page.data.map(serializeDelivery) });
  });
  router.post('/:id/retry', async (req, res) => {
    res.status(202).json(serializeDelivery(await retryDelivery(deps, ws(res), req.params.id, actorOf(res))));
  });
  return router;
}
