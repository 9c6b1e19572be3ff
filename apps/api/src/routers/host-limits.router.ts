import { Router } from 'express';
import { deleteHostLimit, findHostLimit, listHostLimits, putHostLimit, serializeHostLimit } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { actorOf } from '../middleware/auth.js';

/** Budgets per target host and their Retry-After cool-downs (docs/JOBS.md, "Host budgets and Retry-After"). */
export function hostLimitsRouter(deps: ApiDeps): Router {
  const router = Router();
  const ws = (res: { locals: Record<string, unknown> }) => res.locals.workspaceId as string;

  router.get('/', async (req, res) => {
    const page = await listHostLimits(deps, ws(res), req.query);
    res.json({ ...page, data: page.data.map(serializeHostLimit) });
  });
  router.get('/:host', async (req, res) => {
    res.json(serializeHostLimit(await findHostLimit(deps, ws(res), req.params.host)));
  });
  router.put('/:host', async (req, res) => {
    const { row, created } = await putHostLimit(deps, ws(res), req.params.host, req.body, actorOf(res));
    res.status(created ? 201 : 200).json(serializeHostLimit(row));
  });
  router.delete('/:host', async (req, res) => {
    await deleteHostLimit(deps, ws(res), req.params.host, actorOf(res));
    res.status(204).end();
  });
  return router;
}
