import express, { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import type { ApprovalDecision } from '@cronsvc/contracts';
import { AppError, decideApproval, getApproval, waitTokenKnown } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { jsonBody } from '../middleware/json-body.js';
import type { PublicRateLimit } from '../middleware/rate-limit.js';
import { notFoundRoute } from '../middleware/errors.js';
import { PAGE_HEADERS, renderApprovalPage, renderDecisionPage, renderProblemPage } from '../pages/approval-page.js';

// A decision carries at most a comment or a small JSON object.
const DECISION_BODY_LIMIT = '64kb';

// Browsers get pages; API clients (curl accepts anything, others ask for application/json) get JSON.
const wantsHtml = (req: Request) => req.accepts(['application/json', 'text/html']) === 'text/html';

/** What a decision posts: a JSON body as sent, a form's comment, or nothing. */
function decisionInput(req: Request): unknown {
  const body: unknown = req.body;
  if (req.is('application/x-www-form-urlencoded')) {
    const comment = typeof (body as { comment?: unknown })?.comment === 'string' ? (body as { comment: string }).comment.trim() : '';
    return comment === '' ? null : { comment };
  }
  return body === undefined ? null : body;
}

function sendPage(res: Response, status: number, html: string): void {
  res.status(status).set(PAGE_HEADERS).type('html').send(html);
}

/** The error as a page for a browser; thrown on for the JSON error handler otherwise. */
function problemPage(req: Request, res: Response, error: unknown): void {
  if (!(error instanceof AppError) || !wantsHtml(req)) throw error;
  const title = error.code === 'not_found' ? 'This approval link does not work' : 'Something went wrong';
  sendPage(res, error.status, renderProblemPage(title, error.message));
}

/**
 * GET /v1/approvals/:token (JSON, or the review page) and POST .../approve | .../reject, public:
 * the token in the path is the credential (docs/WORKFLOWS.md, "Approvals"). Each request is counted under
 * its token (PUBLIC_RATE_LIMIT_PER_MINUTE) before a decision's body is read.
 */
export function approvalsRouter(deps: ApiDeps, limit: PublicRateLimit): Router {
  const router = Router();
  const counted = limit((req) => waitTokenKnown(deps, 'approval', req.params.token as string));
  const parseDecision = [jsonBody(DECISION_BODY_LIMIT), express.urlencoded({ limit: DECISION_BODY_LIMIT, extended: false })];
  // Relative to the path the page was reached on, so the forms post back to this same service.
  const reviewPath = (req: Request) => `${req.baseUrl}/${encodeURIComponent(req.params.token as string)}`;
  const actions = (req: Request) => ({ approve: `${reviewPath(req)}/approve`, reject: `${reviewPath(req)}/reject` });

  router.get('/:token', counted, async (req, res) => {
    res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
    try {
      const view = await getApproval(deps, req.params.token as string);
      if (wantsHtml(req)) sendPage(res, 200, renderApprovalPage(view, actions(req)));
      else res.json(view);
    } catch (error) {
      problemPage(req, res, error);
    }
  });

  const decide = (decision: ApprovalDecision) => async (req: Request, res: Response) => {
    res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
    const token = req.params.token as string;
    try {
      const decided = await decideApproval(deps, token, decision, decisionInput(req));
      if (!wantsHtml(req)) return void res.json(decided);
      sendPage(res, 200, renderDecisionPage(await getApproval(deps, token), reviewPath(req)));
    } catch (error) {
      // Too late in a browser (another tab, another approver): the page as it stands now, saying so.
      if (error instanceof AppError && error.code === 'already_decided' && wantsHtml(req)) {
        return void sendPage(res, 409, renderApprovalPage(await getApproval(deps, token), actions(req), `Your decision was not recorded: ${error.message}.`));
      }
      problemPage(req, res, error);
    }
  };
  router.post('/:token/approve', counted, parseDecision, decide('approved'));
  router.post('/:token/reject', counted, parseDecision, decide('rejected'));
  router.use(notFoundRoute);
  // What the handlers before a page threw (a request over the limit): a page for a browser too.
  const asPage: ErrorRequestHandler = (error, req, res, _next) => problemPage(req, res, error);
  router.use(asPage);
  return router;
}
