import { Router, type Request, type Response } from 'express';
import {
  AppError, createStatusPage, deleteStatusPage, findStatusPage, listJobs, listMonitors, listStatusPages, serializeStatusPage, updateStatusPage,
} from '@cronsvc/core';
import { actorOf } from '../../middleware/auth.js';
import { redirectDone, sendPage, viewContext, workspaceOf, type ConsoleDeps } from '../context.js';
import { postedValues, type FieldErrors } from '../form-parsing.js';
import { paths } from '../paths.js';
import { confirmView } from '../views/problem.view.js';
import { emptyStatusPageForm, statusPagesView, statusPageView, type StatusPageChoices, type StatusPageForm } from '../views/status-pages.view.js';

/** A repeated checkbox field: every string value posted under `name`. */
const ticked = (body: unknown, name: string): string[] => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string' && v !== '');
};

/** The form as posted, and the body core validates. */
function posted(body: unknown): { form: StatusPageForm; input: { name: string; job_ids: string[]; monitor_ids: string[] } } {
  const values = postedValues(body);
  const form = { values: { name: values.name ?? '' }, jobIds: ticked(body, 'job_ids'), monitorIds: ticked(body, 'monitor_ids'), errors: {} };
  return { form, input: { name: (values.name ?? '').trim(), job_ids: [...new Set(form.jobIds)], monitor_ids: [...new Set(form.monitorIds)] } };
}

/** Core's messages by field: the name's by it, the rest (an unknown job or monitor) above the form. */
function pageErrors(error: AppError): FieldErrors {
  const errors: FieldErrors = {};
  for (const d of error.details ?? [{ path: '', message: error.message }]) (errors[d.path === 'name' ? 'name' : ''] ??= []).push(d.message);
  return errors;
}

/** Status pages: list with public URLs, create, edit what one shows, delete (docs/CONSOLE.md, "Status pages"). */
export function statusPagesRoutes(deps: ConsoleDeps): Router {
  const router = Router();
  const show = (row: Parameters<typeof serializeStatusPage>[0]) => serializeStatusPage(row, deps.config);

  const choices = async (ws: string): Promise<StatusPageChoices> => {
    const [jobs, monitors] = await Promise.all([listJobs(deps, ws, { limit: '100' }), listMonitors(deps, ws, { limit: '100' })]);
    return { jobs: jobs.data.map((j) => ({ id: j.id, name: j.name })), monitors: monitors.data.map((m) => ({ id: m.id, name: m.name })) };
  };
  const list = async (req: Request, res: Response, status: number, form: StatusPageForm) => {
    const ws = workspaceOf(res);
    const [pages, options] = await Promise.all([listStatusPages(deps, ws, { limit: '100' }), choices(ws)]);
    sendPage(res, status, statusPagesView(viewContext(deps, req, res), pages.data.map(show), options, form));
  };

  router.get('/', (req, res) => list(req, res, 200, emptyStatusPageForm()));
  router.post('/', async (req, res) => {
    const { form, input } = posted(req.body);
    try {
      const created = await createStatusPage(deps, workspaceOf(res), input, actorOf(res));
      redirectDone(res, paths.statusPage(created.id), 'status-page-created');
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      await list(req, res, error.status, { ...form, errors: pageErrors(error) });
    }
  });

  router.get('/:id', async (req, res) => {
    const ws = workspaceOf(res);
    const p = show(await findStatusPage(deps, ws, req.params.id));
    const form = { values: { name: p.name }, jobIds: p.job_ids, monitorIds: p.monitor_ids, errors: {} };
    sendPage(res, 200, statusPageView(viewContext(deps, req, res), p, await choices(ws), form));
  });
  router.post('/:id', async (req, res) => {
    const ws = workspaceOf(res);
    const { form, input } = posted(req.body);
    try {
      await updateStatusPage(deps, ws, req.params.id, input, actorOf(res));
      redirectDone(res, paths.statusPage(req.params.id), 'status-page-saved');
    } catch (error) {
      if (!(error instanceof AppError) || error.code === 'not_found') throw error;
      const p = show(await findStatusPage(deps, ws, req.params.id));
      sendPage(res, error.status, statusPageView(viewContext(deps, req, res), p, await choices(ws), { ...form, errors: pageErrors(error) }));
    }
  });
  router.post('/:id/delete', async (req, res) => {
    const ws = workspaceOf(res);
    const p = await findStatusPage(deps, ws, req.params.id);
    if (req.body?.confirmed !== 'yes') {
      return sendPage(res, 200, confirmView(viewContext(deps, req, res), `Delete the status page "${p.name}"?`, paths.statusPageDelete(p.id), 'Delete', paths.statusPages));
    }
    await deleteStatusPage(deps, ws, p.id, actorOf(res));
    redirectDone(res, paths.statusPages, 'status-page-deleted');
  });
  return router;
}
