import type { TriggerResult } from '@cronsvc/contracts';
import express, { Router, type RequestHandler } from 'express';
import { checkTriggerSecret, findTrigger, parseInboundBody, startTriggeredRun, type TriggerJob } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import type { PublicRateLimit } from '../middleware/rate-limit.js';
import { notFoundRoute } from '../middleware/errors.js';

// Webhook senders post whole events; the limit of every other request body applies.
const TRIGGER_BODY_LIMIT = '1mb';

const received: TriggerResult = { received: true };

/**
 * POST /v1/triggers/:token, public: the token in the path is the credential (docs/WORKFLOWS.md,
 * "Webhook triggers"). The token is looked up, the call counted and the secret checked before the body is
 * read, so a refused call costs no body; an unknown token is answered at once, as a known one is.
 */
export function triggersRouter(deps: ApiDeps, limit: PublicRateLimit): Router {
  const router = Router();
  const lookUp: RequestHandler = async (req, res, next) => {
    res.locals.trigger = await findTrigger(deps, req.params.token as string);
    next();
  };
  const trigger = (res: express.Response) => res.locals.trigger as TriggerJob | null;
  const unknownAnswered: RequestHandler = async (req, res, next) => {
    const job = trigger(res);
    // The same answer whether the token is known or not, so tokens cannot be probed; its body is never read.
    if (!job) return void res.status(200).json(received);
    await checkTriggerSecret(deps, job, req.headers['x-webhook-secret']);
    next();
  };
  router.post(
    '/:token',
    lookUp,
    limit((_req, res) => trigger(res) !== null),
    unknownAnswered,
    express.raw({ type: () => true, limit: TRIGGER_BODY_LIMIT }),
    async (req, res) => {
      const body = parseInboundBody(req.body as Buffer | undefined, req.get('content-type'));
      await startTriggeredRun(deps, trigger(res)!, { headers: req.headers, body, query: req.query as Record<string, unknown>, remoteAddress: req.socket.remoteAddress });
      res.status(200).json(received);
    },
  );
  router.use(notFoundRoute);
  return router;
}
