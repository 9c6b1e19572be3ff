import { Router } from 'express';
import { createApiToken, listApiTokens, revokeApiToken, serializeApiToken } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { actorOf } from '../middleware/auth.js';

/** The workspace's own API tokens (docs/API.md, "Tokens"): made and deleted with scope full. */
export function tokensRouter(deps: ApiDeps): Router {
  const router = Router();
  router.post('/', async (req, res) => {
    const actor = actorOf(res);
    res.status(201).json(await createApiToken(deps, actor.workspaceId, req.body, actor));
  });
  router.get('/', async (req, res) => {
    const page = await listApiTokens(deps, actorOf(res).workspaceId, req.query);
    res.json({ ...page, data: page.data.map(serializeApiToken) });
  });
  router.delete('/:id', async (req, res) => {
    const actor = actorOf(res);
    await revokeApiToken(deps, req.params.id, { workspaceId: actor.workspaceId, actor });
    res.status(204).end();
  });
  return router;
}
