import { Router } from 'express';
import { getSigningKey, rotateSigningKey } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';

/** The workspace's request-signing key (DECISIONS D5): read it, or rotate it (200, D3). */
export function signingKeyRouter(deps: ApiDeps): Router {
  const router = Router();
  const ws = (res: { locals: Record<string, unknown> }) => res.locals.workspaceId as string;
  router.get('/', async (_req, res) => {
    res.json(await getSigningKey(deps, ws(res)));
  });
  router.post('/rotate', async (_req, res) => {
    res.json(await rotateSigningKey(deps, ws(res)));
  });
  return router;
}
