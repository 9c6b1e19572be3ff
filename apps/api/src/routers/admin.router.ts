import { Router } from 'express';
import { createApiToken, createWorkspace, revokeApiToken } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { adminOn, requireAdminToken } from '../middleware/auth.js';

export function adminRouter(deps: ApiDeps): Router {
  const router = Router();
  router.use(requireAdminToken(deps.config.adminToken));
  router.post('/workspaces', async (req, res) => {
    res.status(201).json(await createWorkspace(deps.db, deps.config.secretsEncryptionKey, req.body, (workspaceId) => adminOn(res, workspaceId)));
  });
  router.post('/workspaces/:id/tokens', async (req, res) => {
    res.status(201).json(await createApiToken(deps, req.params.id, req.body, adminOn(res, req.params.id)));
  });
  router.delete('/tokens/:id', async (req, res) => {
    await revokeApiToken(deps, req.params.id, { actor: (workspaceId) => adminOn(res, workspaceId) });
    res.status(204).end();
  });
  return router;
}
