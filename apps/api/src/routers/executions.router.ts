import { Router } from 'express';
import { getExecution, listDeliveries, listExecutions, parkExecution, replayExecution, resumeExecution, serializeDelivery, serializeExecution, serializeExecutionSummary } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { actorOf } from '../middleware/auth.js';

export function executionsRouter(deps: ApiDeps): Router {
  const router = Router();
  const ws = (res: { locals: Record<string, unknown> }) => res.locals.workspaceId as string;
  router.get('/', async (req, res) => {
    const page = await listExecutions(deps, ws(res), req.query);
    res.json({ ...page, data: page.data.map(serializeExecutionSummary) });
  });
  router.get('/:id', async (req, res) => {
    res.json(serializeExecution(await getExecution(deps, ws(res), req.params.id)));
  });
  router.post('/:id/replay', async (req, res) => {
    res.status(202).json(serializeExecution(await replayExecution(deps, ws(res), req.params.id, 'replay', actorOf(res))));
  });
  router.post('/:id/park', async (req, res) => {
    const { execution, parked } = await parkExecution(deps, ws(res), req.params.id, actorOf(res));
    res.status(parked ? 200 : 202).json(serializeExecution(execution));
  });
  router.post('/:id/resume', async (req, res) => {
    res.json(serializeExecution(await resumeExecution(deps, ws(res), req.params.id, actorOf(res))));
  });
  router.get('/:id/notifications', async (req, res) => {
    const execution = await getExecution(deps, ws(res), req.params.id);
    const page = await listDeliveries(deps, ws(res), req.query, execution.id);
    res.json({ ...page, data: page.data.map(serializeDelivery) });
  });
  return router;
}
