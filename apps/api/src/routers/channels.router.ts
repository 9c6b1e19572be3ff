import { Router } from 'express';
import { createChannel, deleteChannel, findChannel, listChannels, serializeChannel, testChannel, updateChannel, type HttpClient, type Mailer } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { actorOf } from '../middleware/auth.js';

/** Notification channels: CRUD and the channel test. Credentials are never in an answer. */
export function channelsRouter(deps: ApiDeps, senders: { http: HttpClient; mailer: Mailer | null }): Router {
  const router = Router();
  const ws = (res: { locals: Record<string, unknown> }) => res.locals.workspaceId as string;
  const key = deps.config.secretsEncryptionKey;
  router.post('/', async (req, res) => {
    res.status(201).json(serializeChannel(await createChannel(deps, ws(res), req.body, actorOf(res)), key));
  });
  router.get('/', async (req, res) => {
    const page = await listChannels(deps, ws(res), req.query);
    res.json({ ...page, data: page.data.map((c) => serializeChannel(c, key)) });
  });
  router.get('/:id', async (req, res) => {
    res.json(serializeChannel(await findChannel(deps.db, ws(res), req.params.id), key));
  });
  router.patch('/:id', async (req, res) => {
    res.json(serializeChannel(await updateChannel(deps, ws(res), req.params.id, req.body, actorOf(res)), key));
  });
  router.delete('/:id', async (req, res) => {
    await deleteChannel(deps, ws(res), req.params.id, actorOf(res));
    res.status(204).end();
  });
  // 200 whether or not the test message got through: the body says which.
  router.post('/:id/test', async (req, res) => {
    res.json(await testChannel({ ...deps, ...senders }, ws(res), req.params.id));
  });
  return router;
}
