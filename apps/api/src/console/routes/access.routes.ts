import { Router, type Request, type Response } from 'express';
import { AppError, createApiToken, listApiTokens, listAuditEvents, revokeApiToken, serializeApiToken, serializeAuditEvent } from '@cronsvc/core';
import { actorOf } from '../../middleware/auth.js';
import { queryText, redirectDone, sendPage, viewContext, workspaceOf, type ConsoleDeps } from '../context.js';
import { postedValues, type FieldErrors, type FormValues } from '../form-parsing.js';
import { paths } from '../paths.js';
import { confirmView } from '../views/problem.view.js';
import { auditView, tokensView, type AuditFilter } from '../views/access.view.js';

const PAGE_SIZE = 50;

function tokenErrors(error: AppError): FieldErrors {
  const errors: FieldErrors = {};
  for (const d of error.details ?? [{ path: '', message: error.message }]) (errors[['name', 'scope', 'expires_at'].includes(d.path) ? d.path : ''] ??= []).push(d.message);
  return errors;
}

/** API tokens (list, create shown once, delete) and the audit log, as the API has them. */
export function accessRoutes(deps: ConsoleDeps): Router {
  const router = Router();

  const tokens = async (req: Request, res: Response, status: number, view: { values: FormValues; errors: FieldErrors; created?: Awaited<ReturnType<typeof createApiToken>> }) => {
    const list = await listApiTokens(deps, workspaceOf(res), { limit: '100' });
    sendPage(res, status, tokensView(viewContext(deps, req, res), { tokens: list.data.map(serializeApiToken), ...view }));
  };
  router.get('/tokens', (req, res) => tokens(req, res, 200, { values: {}, errors: {} }));
  router.post('/tokens', async (req, res) => {
    const values = postedValues(req.body);
    const body = {
      ...(values.name?.trim() ? { name: values.name.trim() } : {}),
      ...(values.scope ? { scope: values.scope } : {}),
      ...(values.expires_at?.trim() ? { expires_at: values.expires_at.trim() } : {}),
    };
    try {
      // The page answers with the token itself (not a redirect), so it is shown this once and never in a URL.
      const created = await createApiToken(deps, workspaceOf(res), body, actorOf(res));
      await tokens(req, res, 201, { values: {}, errors: {}, created });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      await tokens(req, res, error.status, { values, errors: tokenErrors(error) });
    }
  });
  router.post('/tokens/:id/delete', async (req, res) => {
    if (req.body?.confirmed !== 'yes') {
      return sendPage(res, 200, confirmView(viewContext(deps, req, res), 'Delete this token? Requests with it are refused at once and its console sessions end.', paths.tokenDelete(req.params.id), 'Delete', paths.tokens));
    }
    const actor = actorOf(res);
    await revokeApiToken(deps, req.params.id, { workspaceId: actor.workspaceId, actor });
    redirectDone(res, paths.tokens, 'token-deleted');
  });

  router.get('/audit', async (req, res) => {
    const keys = ['action', 'target_id', 'from', 'to'] as const;
    const filter: AuditFilter = Object.fromEntries(keys.map((k) => [k, queryText(req.query[k])]).filter(([, v]) => v !== undefined));
    try {
      const list = await listAuditEvents(deps, workspaceOf(res), { ...filter, limit: String(PAGE_SIZE), offset: queryText(req.query.offset) ?? '0' });
      sendPage(res, 200, auditView(viewContext(deps, req, res), { ...list, data: list.data.map(serializeAuditEvent) }, filter));
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'validation_failed') throw error;
      sendPage(res, 400, auditView(viewContext(deps, req, res), { data: [], total: 0, limit: PAGE_SIZE, offset: 0 }, filter, error.message));
    }
  });
  return router;
}
