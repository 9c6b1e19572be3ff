import { Router, type Request, type Response } from 'express';
import { AppError, createSecret, deleteSecret, findSecret, listSecrets, serializeSecret, updateSecret } from '@cronsvc/core';
import { actorOf } from '../../middleware/auth.js';
import { redirectDone, sendPage, viewContext, workspaceOf, type ConsoleDeps } from '../context.js';
import { postedValues, type FieldErrors, type FormValues } from '../form-parsing.js';
import { paths } from '../paths.js';
import { confirmView } from '../views/problem.view.js';
import { secretsView, secretView } from '../views/secrets.view.js';

/** The API's messages about a secret by field: name or value; the rest (a name taken) above the form. */
function secretErrors(error: AppError): FieldErrors {
  const errors: FieldErrors = {};
  for (const d of error.details ?? [{ path: error.code === 'conflict' ? 'name' : '', message: error.message }]) {
    (errors[d.path === 'name' || d.path === 'value' ? d.path : ''] ??= []).push(d.message);
  }
  return errors;
}

/** Secrets: list names, create, set a new value, delete. A value is never put in a page. */
export function secretsRoutes(deps: ConsoleDeps): Router {
  const router = Router();

  const list = async (req: Request, res: Response, status: number, form: { values: FormValues; errors: FieldErrors }) => {
    const secrets = await listSecrets(deps, workspaceOf(res), { limit: '100' });
    sendPage(res, status, secretsView(viewContext(deps, req, res), secrets.data.map(serializeSecret), form));
  };

  router.get('/', (req, res) => list(req, res, 200, { values: {}, errors: {} }));
  router.post('/', async (req, res) => {
    const values = postedValues(req.body);
    try {
      await createSecret(deps, workspaceOf(res), { name: (values.name ?? '').trim(), value: values.value ?? '' }, actorOf(res));
      redirectDone(res, paths.secrets, 'secret-created');
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      // The value is not sent back into the page.
      await list(req, res, error.status, { values: { name: values.name ?? '' }, errors: secretErrors(error) });
    }
  });

  router.get('/:id', async (req, res) => {
    const secret = serializeSecret(await findSecret(deps, workspaceOf(res), req.params.id));
    sendPage(res, 200, secretView(viewContext(deps, req, res), secret, {}));
  });
  router.post('/:id', async (req, res) => {
    const ws = workspaceOf(res);
    try {
      await updateSecret(deps, ws, req.params.id, { value: typeof req.body?.value === 'string' ? req.body.value : '' }, actorOf(res));
      redirectDone(res, paths.secrets, 'secret-updated');
    } catch (error) {
      if (!(error instanceof AppError) || error.code === 'not_found') throw error;
      const secret = serializeSecret(await findSecret(deps, ws, req.params.id));
      sendPage(res, error.status, secretView(viewContext(deps, req, res), secret, secretErrors(error)));
    }
  });
  router.post('/:id/delete', async (req, res) => {
    const ws = workspaceOf(res);
    if (req.body?.confirmed !== 'yes') {
      const secret = await findSecret(deps, ws, req.params.id);
      return sendPage(res, 200, confirmView(viewContext(deps, req, res), `Delete the secret "${secret.name}"?`, paths.secretDelete(secret.id), 'Delete', paths.secrets));
    }
    await deleteSecret(deps, ws, req.params.id, actorOf(res));
    redirectDone(res, paths.secrets, 'secret-deleted');
  });
  return router;
}
