import { Router } from 'express';
import {
  AppError, createStatusPage, deleteStatusPage, findStatusPage, listStatusPages, publicStatusPage, serializeStatusPage, statusPageTokenKnown, updateStatusPage,
} from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { actorOf } from '../middleware/auth.js';
import { notFoundRoute } from '../middleware/errors.js';
import type { PublicRateLimit } from '../middleware/rate-limit.js';
import { renderStatusPage, STATUS_PAGE_HEADERS } from '../pages/status-page.js';

/** Status pages of the workspace: create, list, read, change, delete (docs/API.md, "Status pages"). */
export function statusPagesRouter(deps: ApiDeps): Router {
  const router = Router();
  const ws = (res: { locals: Record<string, unknown> }) => res.locals.workspaceId as string;
  const show = (row: Parameters<typeof serializeStatusPage>[0]) => serializeStatusPage(row, deps.config);
  router.post('/', async (req, res) => {
    res.status(201).json(show(await createStatusPage(deps, ws(res), req.body, actorOf(res))));
  });
  router.get('/', async (req, res) => {
    const page = await listStatusPages(deps, ws(res), req.query);
    res.json({ ...page, data: page.data.map(show) });
  });
  router.get('/:id', async (req, res) => {
    res.json(show(await findStatusPage(deps, ws(res), req.params.id)));
  });
  router.patch('/:id', async (req, res) => {
    res.json(show(await updateStatusPage(deps, ws(res), req.params.id, req.body, actorOf(res))));
  });
  router.delete('/:id', async (req, res) => {
    await deleteStatusPage(deps, ws(res), req.params.id, actorOf(res));
    res.status(204).end();
  });
  return router;
}

/** `GET /v1/status/:token`, public: the page as HTML, or as JSON to a client that asks for it first. */
export function publicStatusRouter(deps: ApiDeps, limit: PublicRateLimit): Router {
  const router = Router();
  const counted = limit((req) => statusPageTokenKnown(deps, req.params.token as string));
  router.get('/:token', counted, async (req, res) => {
    const page = await publicStatusPage(deps, req.params.token as string);
    if (!page) throw AppError.notFound('status page');
    res.vary('Accept');
    if (req.accepts(['text/html', 'application/json']) === 'application/json') {
      res.set('Cache-Control', 'public, max-age=30').json(page);
      return;
    }
    res.set(STATUS_PAGE_HEADERS).type('html').send(renderStatusPage(page));
  });
  router.use(notFoundRoute);
  return router;
}
