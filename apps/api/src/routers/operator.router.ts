import { Router, type Response } from 'express';
import { operatorEndpoints } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';

/**
 * GET /healthz, /readyz and /metrics (docs/OPERATIONS.md, "Monitoring"): public health and readiness, and the
 * Prometheus metrics behind the admin token. Under `npm start` readiness and metrics cover the
 * workers of the same supervisor.
 */
export function operatorRouter(deps: ApiDeps): Router {
  const router = Router();
  const scope = deps.config.supervisor ? { supervisor: deps.config.supervisor } : null;
  const endpoints = operatorEndpoints(deps, { scope, serviceGauges: true });
  const noStore = (res: Response) => res.set('Cache-Control', 'no-store');
  router.get('/healthz', (_req, res) => {
    const answer = endpoints.health();
    noStore(res).status(answer.status).json(answer.body);
  });
  router.get('/readyz', async (_req, res) => {
    const answer = await endpoints.ready();
    noStore(res).status(answer.status).json(answer.body);
  });
  router.get('/metrics', async (req, res) => {
    const answer = await endpoints.metrics(req.headers.authorization);
    noStore(res).status(answer.status);
    if (typeof answer.body === 'string') res.type(answer.contentType ?? 'text/plain').send(answer.body);
    else res.json(answer.body);
  });
  return router;
}
