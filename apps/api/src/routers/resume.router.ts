import express, { Router } from 'express';
import { parseInboundBody, resumeByToken } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { notFoundRoute } from '../middleware/errors.js';

// The payload becomes the step's input (and may be extracted from), like a trigger's body.
const RESUME_BODY_LIMIT = '1mb';

/** POST /v1/resume/:token, public: continues a wait_for_webhook step once (docs/WORKFLOWS.md, "Waiting for a webhook"). */
export function resumeRouter(deps: ApiDeps): Router {
  const router = Router();
  router.post('/:token', express.raw({ type: () => true, limit: RESUME_BODY_LIMIT }), async (req, res) => {
    const payload = parseInboundBody(req.body as Buffer | undefined, req.get('content-type'));
    res.set('Cache-Control', 'no-store').json(await resumeByToken(deps, req.params.token, payload));
  });
  router.use(notFoundRoute);
  return router;
}
