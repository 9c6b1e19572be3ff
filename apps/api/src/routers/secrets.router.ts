import { Router } from 'express';
import { createSecret, deleteSecret, findSecret, listSecrets, serializeSecret, updateSecret } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { actorOf } from '../middleware/auth.js';

/** Workspace secrets (docs/JOBS.md, "Secrets"): every answer is the serialized record, never the value. */
export function secretsRouter(deps: ApiDeps): Router {
  const router = Router();
  const ws = (res: { locals: Record<string, unknown> }) => res.locals.workspaceId as string;

  router.post('/', async (req, res) => {
    res.status(201).json(serializeSecret(await createSecret(deps, ws(res), req.body, actorOf(res))));
  });
  router.get('/', async (req, res) => {
    const page = await listSecrets(deps, ws(res), req.query);
    res.json({ ...page, data: page.data.map(serializeSecret) });
  });
  router.get('/:id', async (req, res) => {
    res.json(serializeSecret(await findSecret(deps, ws(res), req.params.id)));
  });
  router.patch('/:id', async (req, res) => {
    res.json(serializeSecret(await updateSecret(deps, ws(res), req.params.id, req.body, actorOf(res))));
  });
  router.delete('/:id', async (req, res) => {
    await deleteSecret(deps, ws(res), req.params.id, actorOf(res));
    res.status(204).end();
  });
  return router;
}
