import { Router, type Request, type Response } from 'express';
import type { ChannelTestResult } from '@cronsvc/contracts';
import { listChannelRules, listChannels, serializeChannel, testChannel } from '@cronsvc/core';
import { sendPage, viewContext, workspaceOf, type ConsoleDeps } from '../context.js';
import { channelsView } from '../views/channels.view.js';

/** Channels with their rules, and Send test (the page comes back with the outcome beside the button). */
export function channelsRoutes(deps: ConsoleDeps): Router {
  const router = Router();

  async function channelsPage(req: Request, res: Response, tested?: { id: string; result: ChannelTestResult }): Promise<void> {
    const ws = workspaceOf(res);
    const rows = (await listChannels(deps, ws, { limit: '100' })).data;
    const rules = await listChannelRules(deps, ws, rows.map((c) => c.id));
    const channels = rows.map((c) => serializeChannel(c, deps.config.secretsEncryptionKey));
    sendPage(res, 200, channelsView(viewContext(deps, req, res), channels, rules, tested));
  }

  router.get('/', (req, res) => channelsPage(req, res));
  router.post('/:id/test', async (req, res) => {
    const result = await testChannel({ ...deps, ...deps.senders }, workspaceOf(res), req.params.id);
    await channelsPage(req, res, { id: req.params.id, result });
  });
  return router;
}
