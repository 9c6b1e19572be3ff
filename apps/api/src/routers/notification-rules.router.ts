import { Router } from 'express';
import { getRuleById, serializeRule, snoozeRule, unsnoozeRule } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { actorOf } from '../middleware/auth.js';

/** `/v1/notification-rules/:id`: a job or monitor rule with its alert state; snooze and unsnooze. */
export function notificationRulesRouter(deps: ApiDeps): Router {
  const router = Router();
  const ws = (res: { locals: Record<string, unknown> }) => res.locals.workspaceId as string;
  router.get('/:id', async (req, res) => {
    res.json(serializeRule(await getRuleById(deps, ws(res), req.params.id), deps.clock.now()));
  });
  router.post('/:id/snooze', async (req, res) => {
    res.json(serializeRule(await snoozeRule(deps, ws(res), req.params.id, req.body, actorOf(res)), deps.clock.now()));
  });
  router.post('/:id/unsnooze', async (req, res) => {
    res.json(serializeRule(await unsnoozeRule(deps, ws(res), req.params.id, actorOf(res)), deps.clock.now()));
  });
  return router;
}
