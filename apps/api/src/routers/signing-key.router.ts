import { Router } from 'express';
import { getSigningKey, rotateSigningKey } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { actorOf } from '../middleware/auth.js';

/** The workspace's request-signing key (docs/SECURITY.md, "Verifying signatures"): read it, or rotate it (200 with the new key). */
export function signingKeyRouter(deps: ApiDeps): Router {
  const router = Router();
  const ws = (res: { locals: Record<string, unknown> }) => res.locals.workspaceId as string;
  router.get('/', async (_req, res) => {
    res.json(await getSigningKey(deps, ws(res)));
  });
  router.post('/rotate', async (_req, res) => {
    res.json(await rotateSigningKey(deps, ws(res), actorOf(res)));
  });
  return router;
}
