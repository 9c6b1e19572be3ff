import type { PingResult } from '@cronsvc/contracts';
import express, { Router } from 'express';
import { AppError, pingTokenKnown, recordPing } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { notFoundRoute } from '../middleware/errors.js';
import type { PublicRateLimit } from '../middleware/rate-limit.js';

// A ping's body is not stored; this only bounds what a caller can make the API read.
export const PING_BODY_LIMIT = 10 * 1024;

/**
 * `GET|POST /v1/ping/:token`, public: the token in the path is the credential. Mounted before the
 * API-token check and the 1 MiB JSON parser. The ping itself touches Postgres only; with
 * PUBLIC_RATE_LIMIT_PER_MINUTE on, the request is first counted (in Redis when the service has it)
 * under its token, looked up without taking the monitor's row lock.
 */
export function pingRouter(deps: ApiDeps, limit: PublicRateLimit): Router {
  const router = Router();
  const counted = limit((req) => pingTokenKnown(deps, req.params.token as string));
  const ping: express.RequestHandler = async (req, res) => {
    if (!(await recordPing(deps, req.params.token as string, deps.clock.now()))) throw AppError.notFound('monitor');
    res.json({ ok: true } satisfies PingResult);
  };
  const body = express.raw({ limit: PING_BODY_LIMIT, type: () => true });
  router.get('/:token', counted, ping);
  router.post('/:token', counted, body, ping);
  router.use(notFoundRoute);
  return router;
}
