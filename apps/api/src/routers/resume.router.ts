import express, { Router, type RequestHandler } from 'express';
import { parseInboundBody, resumeByToken, unknownResumeToken, waitTokenKnown } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import type { PublicRateLimit } from '../middleware/rate-limit.js';
import { notFoundRoute } from '../middleware/errors.js';

// The payload becomes the step's input (and may be extracted from), like a trigger's body.
const RESUME_BODY_LIMIT = '1mb';

/**
 * POST /v1/resume/:token, public: continues a wait_for_webhook step once (docs/WORKFLOWS.md,
 * "Waiting for a webhook"). The token is looked up and the call counted before the body is read: an unknown
 * token is a 404 without it.
 */
export function resumeRouter(deps: ApiDeps, limit: PublicRateLimit): Router {
  const router = Router();
  const lookUp: RequestHandler = async (req, res, next) => {
    res.locals.known = await waitTokenKnown(deps, 'wait_for_webhook', req.params.token as string);
    next();
  };
  const unknownRefused: RequestHandler = (_req, res, next) => {
    if (!res.locals.known) throw unknownResumeToken();
    next();
  };
  router.post(
    '/:token',
    lookUp,
    limit((_req, res) => res.locals.known as boolean),
    unknownRefused,
    express.raw({ type: () => true, limit: RESUME_BODY_LIMIT }),
    async (req, res) => {
      const payload = parseInboundBody(req.body as Buffer | undefined, req.get('content-type'));
      res.set('Cache-Control', 'no-store').json(await resumeByToken(deps, req.params.token as string, payload));
    },
  );
  router.use(notFoundRoute);
  return router;
}
