import { Router } from 'express';
import { listFires } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';

/** The workspace's fire ledger (docs/JOBS.md, "The fire ledger"); one job's is under /v1/jobs/:id/fires. */
export function firesRouter(deps: ApiDeps): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    res.json(await listFires(deps, res.locals.workspaceId as string, req.query));
  });
  return router;
}
