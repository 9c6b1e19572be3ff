import { Router, type Request, type Response } from 'express';
import { AppError, deleteHostLimit, listHostLimits, putHostLimit, serializeHostLimit } from '@cronsvc/core';
import { actorOf } from '../../middleware/auth.js';
import { redirectDone, sendPage, viewContext, workspaceOf, type ConsoleDeps } from '../context.js';
import { postedValues, type FieldErrors, type FormValues } from '../form-parsing.js';
import { paths } from '../paths.js';
import { hostsView } from '../views/hosts.view.js';
import { confirmView } from '../views/problem.view.js';

const FIELDS = new Set(['host', 'max_concurrency', 'max_per_second']);

/** The API's messages by field; a body without any limit is said beside both. */
function hostErrors(error: AppError): FieldErrors {
  const errors: FieldErrors = {};
  for (const d of error.details ?? [{ path: '', message: error.message }]) {
    const paths = d.path === '(body)' ? ['max_concurrency'] : [FIELDS.has(d.path) ? d.path : ''];
    for (const p of paths) (errors[p] ??= []).push(d.message);
  }
  return errors;
}

/** A number field as the API takes it: left out when empty, a number when it reads as one, else the text (refused by the API's schema). */
function numberField(value: string | undefined): number | string | undefined {
  const text = (value ?? '').trim();
  if (text === '') return undefined;
  return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
}

/** Host limits: list with cool-downs, set a host's limits, remove them (docs/CONSOLE.md). */
export function hostsRoutes(deps: ConsoleDeps): Router {
  const router = Router();

  const list = async (req: Request, res: Response, status: number, form: { values: FormValues; errors: FieldErrors }) => {
    const hosts = await listHostLimits(deps, workspaceOf(res), { limit: '100' });
    sendPage(res, status, hostsView(viewContext(deps, req, res), hosts.data.map(serializeHostLimit), form));
  };

  router.get('/', (req, res) => list(req, res, 200, { values: {}, errors: {} }));
  router.post('/', async (req, res) => {
    const values = postedValues(req.body);
    try {
      const body = { max_concurrency: numberField(values.max_concurrency), max_per_second: numberField(values.max_per_second) };
      await putHostLimit(deps, workspaceOf(res), (values.host ?? '').trim(), body, actorOf(res));
      redirectDone(res, paths.hosts, 'host-limits-set');
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      await list(req, res, error.status, { values, errors: hostErrors(error) });
    }
  });
  router.post('/delete', async (req, res) => {
    const host = postedValues(req.body).host ?? '';
    if (req.body?.confirmed !== 'yes') {
      return sendPage(res, 200, confirmView(viewContext(deps, req, res), `Remove the limits of ${host} and any cool-down?`, paths.hostDelete, 'Remove', paths.hosts, { host }));
    }
    await deleteHostLimit(deps, workspaceOf(res), host, actorOf(res));
    redirectDone(res, paths.hosts, 'host-limits-removed');
  });
  return router;
}
