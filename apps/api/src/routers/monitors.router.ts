import { Router } from 'express';
import { createMonitor, deleteMonitor, findMonitor, listMonitorPings, listMonitors, pauseMonitor, resumeMonitor, rotateMonitorBadge, serializeMonitor, updateMonitor } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { actorOf } from '../middleware/auth.js';
import { rulesRouter } from './rules.router.js';

/** Heartbeat monitors: CRUD, pause and resume, their ping history and their notification rules. */
export function monitorsRouter(deps: ApiDeps): Router {
  const router = Router();
  const ws = (res: { locals: Record<string, unknown> }) => res.locals.workspaceId as string;
  const show = (m: Parameters<typeof serializeMonitor>[0]) => serializeMonitor(m, deps.config);
  router.post('/', async (req, res) => {
    res.status(201).json(show(await createMonitor(deps, ws(res), req.body, actorOf(res))));
  });
  router.get('/', async (req, res) => {
    const page = await listMonitors(deps, ws(res), req.query);
    res.json({ ...page, data: page.data.map(show) });
  });
  router.get('/:id', async (req, res) => {
    res.json(show(await findMonitor(deps.db, ws(res), req.params.id)));
  });
  router.patch('/:id', async (req, res) => {
    res.json(show(await updateMonitor(deps, ws(res), req.params.id, req.body, actorOf(res))));
  });
  router.delete('/:id', async (req, res) => {
    await deleteMonitor(deps, ws(res), req.params.id, actorOf(res));
    res.status(204).end();
  });
  router.post('/:id/badge/rotate', async (req, res) => {
    res.json(await rotateMonitorBadge(deps, ws(res), req.params.id, actorOf(res)));
  });
  router.post('/:id/pause', async (req, res) => {
    res.json(show(await pauseMonitor(deps, ws(res), req.params.id, actorOf(res))));
  });
  router.post('/:id/resume', async (req, res) => {
    res.json(show(await resumeMonitor(deps, ws(res), req.params.id, actorOf(res))));
  });
  router.get('/:id/pings', async (req, res) => {
    res.json(await listMonitorPings(deps, ws(res), req.params.id, req.query));
  });
  router.use('/:id/notification-rules', rulesRouter(deps, 'monitor'));
  return router;
}
