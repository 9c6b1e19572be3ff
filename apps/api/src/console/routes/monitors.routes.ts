import { Router, type Request, type Response } from 'express';
import { AppError, createMonitor, deleteMonitor, deleteRule, findMonitor, listMonitors, pauseMonitor, resumeMonitor, serializeMonitor } from '@cronsvc/core';
import { redirectDone, sendPage, viewContext, workspaceOf, type ConsoleDeps } from '../context.js';
import { postedValues, type FieldErrors, type FormValues } from '../form-parsing.js';
import { paths, safeReturnPath } from '../paths.js';
import { monitorsView } from '../views/monitors.view.js';
import { confirmView } from '../views/problem.view.js';

const asNumber = (text: string | undefined) => (text !== undefined && /^\d+$/.test(text.trim()) ? Number(text.trim()) : text?.trim() || undefined);

/** Monitors: list, create, pause, resume, delete, and removing their notification rules. */
export function monitorsRoutes(deps: ConsoleDeps): Router {
  const router = Router();

  const list = async (req: Request, res: Response, status: number, form: { values: FormValues; errors: FieldErrors }) => {
    const monitors = await listMonitors(deps, workspaceOf(res), { limit: '100' });
    sendPage(res, status, monitorsView(viewContext(deps, req, res), monitors.data.map((m) => serializeMonitor(m, deps.config)), form));
  };

  router.get('/', (req, res) => list(req, res, 200, { values: {}, errors: {} }));

  router.post('/', async (req, res) => {
    const values = postedValues(req.body);
    const body = Object.fromEntries(
      Object.entries({ name: values.name ?? '', expected_interval_sec: asNumber(values.expected_interval_sec), grace_sec: asNumber(values.grace_sec) }).filter(([, v]) => v !== undefined),
    );
    try {
      await createMonitor(deps, workspaceOf(res), body);
      redirectDone(res, paths.monitors, 'monitor-created');
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const errors: FieldErrors = {};
      for (const d of error.details ?? [{ path: '', message: error.message }]) (errors[['name', 'expected_interval_sec', 'grace_sec'].includes(d.path) ? d.path : ''] ??= []).push(d.message);
      await list(req, res, error.status, { values, errors });
    }
  });

  router.post('/:id/pause', async (req, res) => {
    await pauseMonitor(deps, workspaceOf(res), req.params.id);
    redirectDone(res, paths.monitors, 'monitor-paused');
  });
  router.post('/:id/resume', async (req, res) => {
    await resumeMonitor(deps, workspaceOf(res), req.params.id);
    redirectDone(res, paths.monitors, 'monitor-resumed');
  });
  router.post('/:id/delete', async (req, res) => {
    const ws = workspaceOf(res);
    if (req.body?.confirmed !== 'yes') {
      const monitor = await findMonitor(deps.db, ws, req.params.id);
      return sendPage(res, 200, confirmView(viewContext(deps, req, res), `Delete the monitor "${monitor.name}"?`, paths.monitorAction(monitor.id, 'delete'), 'Delete', paths.monitors));
    }
    await deleteMonitor(deps, ws, req.params.id);
    redirectDone(res, paths.monitors, 'monitor-deleted');
  });
  router.post('/:id/rules/:ruleId/delete', async (req, res) => {
    await deleteRule(deps, workspaceOf(res), { kind: 'monitor', id: req.params.id }, req.params.ruleId);
    redirectDone(res, safeReturnPath(req.body?.back) ?? paths.monitors, 'rule-removed');
  });
  return router;
}
