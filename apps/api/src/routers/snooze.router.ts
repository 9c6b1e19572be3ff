import express, { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import { AppError, snoozeByLink, snoozeLinkView, snoozeTokenKnown } from '@cronsvc/core';
import type { SnoozeLinkResult } from '@cronsvc/contracts';
import type { ApiDeps } from '../app.js';
import { notFoundRoute } from '../middleware/errors.js';
import type { PublicRateLimit } from '../middleware/rate-limit.js';
import { PAGE_HEADERS, renderProblemPage } from '../pages/approval-page.js';
import { renderSnoozedPage, renderSnoozePage } from '../pages/snooze-page.js';

const wantsHtml = (req: Request) => req.accepts(['application/json', 'text/html']) === 'text/html';

function problem(req: Request, res: Response, error: unknown): void {
  if (!(error instanceof AppError) || !wantsHtml(req)) throw error;
  const title = error.code === 'not_found' ? 'This snooze link does not work' : 'Something went wrong';
  res.status(error.status).set(PAGE_HEADERS).type('html').send(renderProblemPage(title, error.message));
}

/**
 * `GET|POST /v1/snooze/:token`, public: the link in a failure or monitor-down message. GET shows
 * a page with buttons (JSON of what it would snooze to an API client) and never snoozes; POST snoozes the rule for `?minutes=` (default 60) and
 * answers `{snoozed_until}` (or a page, to a browser's form). Counted under its token
 * (PUBLIC_RATE_LIMIT_PER_MINUTE) like the other public endpoints.
 */
export function snoozeRouter(deps: ApiDeps, limit: PublicRateLimit): Router {
  const router = Router();
  const counted = limit((req) => snoozeTokenKnown(deps, req.params.token as string));
  // A form's button posts an empty urlencoded body; nothing in a body is read.
  const body = express.raw({ limit: '1kb', type: () => true });
  router.get('/:token', counted, async (req, res) => {
    res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
    try {
      const { target, link } = await snoozeLinkView(deps, req.params.token as string);
      if (!wantsHtml(req)) return void res.json(link);
      const page = renderSnoozePage({ target, event: link.event, snoozedUntil: link.snoozed_until }, `${req.baseUrl}/${encodeURIComponent(req.params.token as string)}`);
      res.set(PAGE_HEADERS).type('html').send(page);
    } catch (error) {
      problem(req, res, error);
    }
  });
  router.post('/:token', counted, body, async (req, res) => {
    res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
    try {
      const rule = await snoozeByLink(deps, req.params.token as string, req.query);
      const snoozedUntil = (rule.snoozedUntil as Date).toISOString();
      if (!wantsHtml(req)) return void res.json({ snoozed_until: snoozedUntil } satisfies SnoozeLinkResult);
      const { target } = await snoozeLinkView(deps, req.params.token as string);
      res.set(PAGE_HEADERS).type('html').send(renderSnoozedPage({ target, snoozedUntil }));
    } catch (error) {
      problem(req, res, error);
    }
  });
  router.use(notFoundRoute);
  const asPage: ErrorRequestHandler = (error, req, res, _next) => problem(req, res, error);
  router.use(asPage);
  return router;
}
