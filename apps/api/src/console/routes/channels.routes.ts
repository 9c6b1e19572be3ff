import { Router, type Request, type Response } from 'express';
import type { ChannelTestResult } from '@cronsvc/contracts';
import { createRule, listChannelRules, listChannels, listMonitors, serializeChannel, testChannel } from '@cronsvc/core';
import { redirectDone, sendPage, viewContext, workspaceOf, type ConsoleDeps } from '../context.js';
import { paths } from '../paths.js';
import { channelsView } from '../views/channels.view.js';

/** Channels with their rules, a monitor's new rule, and Send test (the page comes back with the outcome beside the button). */
export function channelsRoutes(deps: ConsoleDeps): Router {
  const router = Router();

  async function channelsPage(req: Request, res: Response, tested?: { id: string; result: ChannelTestResult }): Promise<void> {
    const ws = workspaceOf(res);
    const [rows, monitors] = await Promise.all([listChannels(deps, ws, { limit: '100' }), listMonitors(deps, ws, { limit: '100' })]);
    const rules = await listChannelRules(deps, ws, rows.data.map((c) => c.id));
    const channels = rows.data.map((c) => serializeChannel(c, deps.config.secretsEncryptionKey));
    const view = { channels, rules, monitors: monitors.data.map((m) => ({ id: m.id, name: m.name })), tested };
    sendPage(res, 200, channelsView(viewContext(deps, req, res), view));
  }

  router.get('/', (req, res) => channelsPage(req, res));
  // A job's rules are added on its page; a monitor's here, where its channel is.
  router.post('/monitor-rules', async (req, res) => {
    const monitorId = typeof req.body?.monitor_id === 'string' ? req.body.monitor_id : '';
    await createRule(deps, workspaceOf(res), { kind: 'monitor', id: monitorId }, { channel_id: req.body?.channel_id, event: req.body?.event });
    redirectDone(res, paths.channels, 'rule-added');
  });
  router.post('/:id/test', async (req, res) => {
    const result = await testChannel({ ...deps, ...deps.senders }, workspaceOf(res), req.params.id);
    await channelsPage(req, res, { id: req.params.id, result });
  });
  return router;
}
