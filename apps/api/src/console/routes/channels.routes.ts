import { Router, type Request, type Response } from 'express';
import type { ChannelTestResult } from '@cronsvc/contracts';
import { CHANNEL_TYPES, type ChannelType } from '@cronsvc/contracts';
import {
  AppError, createChannel, createRule, findChannel, listChannelRules, listChannels, listMonitors, serializeChannel, snoozeRule, snoozeRuleUntilUnsnoozed, testChannel,
  unsnoozeRule, updateChannel,
} from '@cronsvc/core';
import { channelConfigFromForm } from '../channel-form.js';
import { redirectDone, sendPage, viewContext, workspaceOf, type ConsoleDeps } from '../context.js';
import { actorOf } from '../../middleware/auth.js';
import { paths, safeReturnPath } from '../paths.js';
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
  // A new channel of any type, from the form of its type.
  router.post('/', async (req, res) => {
    const type = req.body?.type as ChannelType;
    if (!CHANNEL_TYPES.includes(type)) throw AppError.validation([{ path: 'type', message: `must be one of ${CHANNEL_TYPES.join(', ')}` }]);
    await createChannel(deps, workspaceOf(res), { name: req.body?.name, type, config: channelConfigFromForm(type, req.body ?? {}, false) }, actorOf(res));
    redirectDone(res, paths.channels, 'channel-created');
  });
  // A job's rules are added on its page; a monitor's here, where its channel is.
  router.post('/monitor-rules', async (req, res) => {
    const monitorId = typeof req.body?.monitor_id === 'string' ? req.body.monitor_id : '';
    await createRule(deps, workspaceOf(res), { kind: 'monitor', id: monitorId }, { channel_id: req.body?.channel_id, event: req.body?.event }, actorOf(res));
    redirectDone(res, paths.channels, 'rule-added');
  });
  // A rule's snooze, from wherever the rule is shown (its job's page or here): 60, 1440 or "until" unsnoozed.
  router.post('/rules/:ruleId/snooze', async (req, res) => {
    const ws = workspaceOf(res);
    const minutes = typeof req.body?.minutes === 'string' ? req.body.minutes : '';
    if (minutes === 'until') await snoozeRuleUntilUnsnoozed(deps, ws, req.params.ruleId, actorOf(res));
    else await snoozeRule(deps, ws, req.params.ruleId, { minutes: /^\d{1,5}$/.test(minutes) ? Number(minutes) : minutes }, actorOf(res));
    redirectDone(res, safeReturnPath(req.body?.back) ?? paths.channels, 'rule-snoozed');
  });
  router.post('/rules/:ruleId/unsnooze', async (req, res) => {
    await unsnoozeRule(deps, workspaceOf(res), req.params.ruleId, actorOf(res));
    redirectDone(res, safeReturnPath(req.body?.back) ?? paths.channels, 'rule-unsnoozed');
  });
  // After the literal paths above: a channel's name and settings; credentials left empty stay as they are.
  router.post('/:id', async (req, res) => {
    const ws = workspaceOf(res);
    const current = await findChannel(deps.db, ws, req.params.id);
    const config = channelConfigFromForm(current.type as ChannelType, req.body ?? {}, true);
    await updateChannel(deps, ws, req.params.id, { name: req.body?.name, config }, actorOf(res));
    redirectDone(res, paths.channels, 'channel-updated');
  });
  router.post('/:id/test', async (req, res) => {
    const result = await testChannel({ ...deps, ...deps.senders }, workspaceOf(res), req.params.id);
    await channelsPage(req, res, { id: req.params.id, result });
  });
  return router;
}
