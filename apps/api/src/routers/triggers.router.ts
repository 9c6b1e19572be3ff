import type { TriggerResult } from '@cronsvc/contracts';
import express, { Router } from 'express';
import { parseInboundBody, receiveTrigger } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { notFoundRoute } from '../middleware/errors.js';

// Webhook senders post whole events; the limit of every other request body applies.
const TRIGGER_BODY_LIMIT = '1mb';

/** POST /v1/triggers/:token, public: the token in the path is the credential (docs/WORKFLOWS.md, "Webhook triggers"). */
export function triggersRouter(deps: ApiDeps): Router {
  const router = Router();
  router.post('/:token', express.raw({ type: () => true, limit: TRIGGER_BODY_LIMIT }), async (req, res) => {
    const body = parseInboundBody(req.body as Buffer | undefined, req.get('content-type'));
    await receiveTrigger(deps, req.params.token, { headers: req.headers, body, query: req.query as Record<string, unknown>, remoteAddress: req.socket.remoteAddress });
    // The same answer whether the token is known or not, so tokens cannot be probed.
    res.status(200).json({ received: true } satisfies TriggerResult);
  });
  router.use(notFoundRoute);
  return router;
}
