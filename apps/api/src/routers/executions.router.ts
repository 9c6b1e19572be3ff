import { Router } from 'express';
import { getExecution, listExecutions, serializeExecution } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';

export function executionsRouter(deps: ApiDeps): Router {
  const router = Router();
  const ws = (res: { locals: Record<string, unknown> }) => res.locals.workspaceId as string;
  router.get('/', async (req, res) => {
    const page = await listExecutions(deps, ws(res), req.query);
    res.json({ ...page, data: page.data.map(serializeExecution) });
  });
  router.get('/:id', async (req, res) => {
    res.json(serializeExecution(await getExecution(deps, ws(res), req.params.id)));
  });
  return router;
}
