import type { PurgeResult } from '@cronsvc/contracts';
import { Router } from 'express';
import { dlqStats, listDlq, purgeDlq, removeFromDlq, replayBatch, replayExecution, serializeExecution, serializeExecutionSummary } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { actorOf } from '../middleware/auth.js';

/** The dead-letter queue (docs/EXECUTIONS.md): failed executions awaiting replay or removal. */
export function dlqRouter(deps: ApiDeps): Router {
  const router = Router();
  const ws = (res: { locals: Record<string, unknown> }) => res.locals.workspaceId as string;
  router.get('/', async (req, res) => {
    const page = await listDlq(deps, ws(res), req.query);
    res.json({ ...page, data: page.data.map(serializeExecutionSummary) });
  });
  router.get('/stats', async (_req, res) => {
    res.json(await dlqStats(deps, ws(res)));
  });
  router.post('/replay-batch', async (req, res) => {
    res.json(await replayBatch(deps, ws(res), req.body, actorOf(res)));
  });
  router.post('/purge', async (req, res) => {
    res.json({ purged: await purgeDlq(deps, ws(res), req.body, actorOf(res)) } satisfies PurgeResult);
  });
  router.post('/:id/replay', async (req, res) => {
    res.status(202).json(serializeExecution(await replayExecution(deps, ws(res), req.params.id, 'dlq_replay', actorOf(res))));
  });
  router.delete('/:id', async (req, res) => {
    await removeFromDlq(deps, ws(res), req.params.id, actorOf(res));
    res.status(204).end();
  });
  return router;
}
