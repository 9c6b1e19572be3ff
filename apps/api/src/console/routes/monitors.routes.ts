import { Router, type Request, type Response } from 'express';
import {
  AppError, createMonitor, createRule, deleteMonitor, deleteRule, findMonitor, listChannels, listMonitorPings, listMonitors, listRules, pauseMonitor, resumeMonitor,
  serializeChannel, serializeMonitor, serializeRule, updateMonitor,
} from '@cronsvc/core';
import { redirectDone, sendPage, viewContext, workspaceOf, type ConsoleDeps } from '../context.js';
import { postedValues, type FieldErrors, type FormValues } from '../form-parsing.js';
import { actorOf } from '../../middleware/auth.js';
import { paths, safeReturnPath } from '../paths.js';
import { MONITOR_FORM_FIELDS, monitorsView, monitorValues, monitorView } from '../views/monitors.view.js';
import { confirmView } from '../views/problem.view.js';

// Pings shown on a monitor's page; the API and the CLI page through all that are kept.
const PINGS_SHOWN = 50;

const trimmed = (text: string | undefined) => text?.trim() ?? '';
const asNumber = (text: string | undefined) => (/^\d+$/.test(trimmed(text)) ? Number(trimmed(text)) : trimmed(text) || undefined);

/**
 * The API body of the create or edit form: the cron field becomes `schedule`, an interval
 * `expected_interval_sec` (both given is the API's 400). On edit, empty schedule fields leave the
 * schedule as it is and an empty max duration removes it.
 */
function monitorBody(values: FormValues, editing: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: values.name ?? '',
    expected_interval_sec: asNumber(values.expected_interval_sec),
    schedule: trimmed(values.cron) ? { cron: trimmed(values.cron) } : undefined,
    grace_sec: asNumber(values.grace_sec),
    max_duration_sec: asNumber(values.max_duration_sec) ?? (editing ? null : undefined),
  };
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}

/** The API's problems by form field; anything else goes to the summary. */
function fieldErrors(error: AppError): FieldErrors {
  const errors: FieldErrors = {};
  for (const d of error.details ?? [{ path: '', message: error.message }]) (errors[MONITOR_FORM_FIELDS[d.path] ?? ''] ??= []).push(d.message);
  return errors;
}

/** Monitors: list, create; a monitor's page with its pings, rules and settings; pause, resume, delete. */
export function monitorsRoutes(deps: ConsoleDeps): Router {
  const router = Router();

  const list = async (req: Request, res: Response, status: number, form: { values: FormValues; errors: FieldErrors }) => {
    const monitors = await listMonitors(deps, workspaceOf(res), { limit: '100' });
    sendPage(res, status, monitorsView(viewContext(deps, req, res), monitors.data.map((m) => serializeMonitor(m, deps.config)), form));
  };

  const monitorPage = async (req: Request, res: Response, status: number, form?: { values: FormValues; errors: FieldErrors }) => {
    const ws = workspaceOf(res);
    const row = await findMonitor(deps.db, ws, req.params.id as string);
    const monitor = serializeMonitor(row, deps.config);
    const [pings, rules, channels] = await Promise.all([
      listMonitorPings(deps, ws, row.id, { limit: String(PINGS_SHOWN) }),
      listRules(deps, ws, { kind: 'monitor', id: row.id }, { limit: '100' }),
      listChannels(deps, ws, { limit: '100' }),
    ]);
    const view = {
      monitor,
      pings,
      rules: rules.data.map((r) => serializeRule(r, deps.clock.now())),
      channels: channels.data.map((c) => serializeChannel(c, deps.config.secretsEncryptionKey)),
      form: form ?? { values: monitorValues(monitor), errors: {} },
    };
    sendPage(res, status, monitorView(viewContext(deps, req, res), view));
  };

  router.get('/', (req, res) => list(req, res, 200, { values: {}, errors: {} }));

  router.post('/', async (req, res) => {
    const values = postedValues(req.body);
    try {
      const monitor = await createMonitor(deps, workspaceOf(res), monitorBody(values, false), actorOf(res));
      redirectDone(res, paths.monitor(monitor.id), 'monitor-created');
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'validation_failed') throw error;
      await list(req, res, error.status, { values, errors: fieldErrors(error) });
    }
  });

  router.get('/:id', (req, res) => monitorPage(req, res, 200));

  router.post('/:id', async (req, res) => {
    const values = postedValues(req.body);
    try {
      await updateMonitor(deps, workspaceOf(res), req.params.id, monitorBody(values, true), actorOf(res));
      redirectDone(res, paths.monitor(req.params.id), 'monitor-saved');
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'validation_failed') throw error;
      await monitorPage(req, res, error.status, { values, errors: fieldErrors(error) });
    }
  });

  const back = (req: Request) => safeReturnPath(req.body?.back) ?? paths.monitors;
  router.post('/:id/pause', async (req, res) => {
    await pauseMonitor(deps, workspaceOf(res), req.params.id, actorOf(res));
    redirectDone(res, back(req), 'monitor-paused');
  });
  router.post('/:id/resume', async (req, res) => {
    await resumeMonitor(deps, workspaceOf(res), req.params.id, actorOf(res));
    redirectDone(res, back(req), 'monitor-resumed');
  });
  router.post('/:id/delete', async (req, res) => {
    const ws = workspaceOf(res);
    if (req.body?.confirmed !== 'yes') {
      const monitor = await findMonitor(deps.db, ws, req.params.id);
      return sendPage(res, 200, confirmView(viewContext(deps, req, res), `Delete the monitor "${monitor.name}"?`, paths.monitorAction(monitor.id, 'delete'), 'Delete', paths.monitors));
    }
    await deleteMonitor(deps, ws, req.params.id, actorOf(res));
    redirectDone(res, paths.monitors, 'monitor-deleted');
  });
  router.post('/:id/rules', async (req, res) => {
    await createRule(deps, workspaceOf(res), { kind: 'monitor', id: req.params.id }, { channel_id: req.body?.channel_id, event: req.body?.event }, actorOf(res));
    redirectDone(res, paths.monitor(req.params.id), 'rule-added');
  });
  router.post('/:id/rules/:ruleId/delete', async (req, res) => {
    await deleteRule(deps, workspaceOf(res), { kind: 'monitor', id: req.params.id }, req.params.ruleId, actorOf(res));
    redirectDone(res, safeReturnPath(req.body?.back) ?? paths.monitors, 'rule-removed');
  });
  return router;
}
