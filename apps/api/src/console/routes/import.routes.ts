import { Router } from 'express';
import { AppError, importCrontab, serializeJob } from '@cronsvc/core';
import { actorOf } from '../../middleware/auth.js';
import { sendPage, viewContext, workspaceOf, type ConsoleDeps } from '../context.js';
import { postedValues } from '../form-parsing.js';
import { importView } from '../views/import.view.js';

/** Import a crontab (POST /v1/jobs/import's use case), with the answer shown as a page. */
export function importRoutes(deps: ConsoleDeps): Router {
  const router = Router();
  router.get('/', (req, res) => sendPage(res, 200, importView(viewContext(deps, req, res), { values: {}, errors: {} })));
  router.post('/', async (req, res) => {
    const values = postedValues(req.body);
    const body = { crontab: values.crontab ?? '', ...(values.default_url?.trim() ? { default_url: values.default_url.trim() } : {}) };
    try {
      const result = await importCrontab(deps, workspaceOf(res), body, actorOf(res));
      const answer = { created: result.created.map((row) => serializeJob(row, deps.config)), errors: result.errors, notes: result.notes };
      // The form comes back empty after jobs were created, so a second click does not make them twice.
      sendPage(res, 200, importView(viewContext(deps, req, res), { values: answer.created.length ? {} : values, errors: {} }, answer));
    } catch (error) {
      if (!(error instanceof AppError) || !error.details) throw error;
      const errors: Record<string, string[]> = {};
      for (const detail of error.details) (errors[['crontab', 'default_url'].includes(detail.path) ? detail.path : ''] ??= []).push(detail.message);
      sendPage(res, error.status, importView(viewContext(deps, req, res), { values, errors }));
    }
  });
  return router;
}
