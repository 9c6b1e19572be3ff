import { Router } from 'express';
import { createRule, deleteRule, listRules, serializeRule } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { actorOf } from '../middleware/auth.js';

/** `/:id/notification-rules` of jobs or monitors: list, create, delete. */
export function rulesRouter(deps: ApiDeps, kind: 'job' | 'monitor'): Router {
  const router = Router({ mergeParams: true });
  const ws = (res: { locals: Record<string, unknown> }) => res.locals.workspaceId as string;
  const owner = (params: Record<string, string>) => ({ kind, id: params.id });
  router.get('/', async (req, res) => {
    const page = await listRules(deps, ws(res), owner(req.params), req.query);
    res.json({ ...page, data: page.data.map((r) => serializeRule(r, deps.clock.now())) });
  });
  router.post('/', async (req, res) => {
    res.status(201).json(serializeRule(await createRule(deps, ws(res), owner(req.params), req.body, actorOf(res))));
  });
  router.delete('/:rule_id', async (req, res) => {
    await deleteRule(deps, ws(res), owner(req.params), req.params.rule_id, actorOf(res));
    res.status(204).end();
  });
  return router;
}
