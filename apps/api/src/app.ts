import { randomUUID } from 'node:crypto';
import express, { type Express } from 'express';
import type { Deps } from '@cronsvc/core';
import { requireApiToken } from './middleware/auth.js';
import { errorHandler, notFoundRoute } from './middleware/errors.js';
import { adminRouter } from './routers/admin.router.js';
import { approvalsRouter } from './routers/approvals.router.js';
import { deliveriesRouter } from './routers/deliveries.router.js';
import { dlqRouter } from './routers/dlq.router.js';
import { executionsRouter } from './routers/executions.router.js';
import { jobsRouter } from './routers/jobs.router.js';
import { resumeRouter } from './routers/resume.router.js';
import { secretsRouter } from './routers/secrets.router.js';
import { triggersRouter } from './routers/triggers.router.js';
import { DASHBOARD_PATH, queueDashboard } from './routers/queue-dashboard.js';
import { signingKeyRouter } from './routers/signing-key.router.js';

export type ApiDeps = Deps;

/** The HTTP API without a listening socket, so tests can drive it with supertest. */
export function createApp(deps: ApiDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.set('query parser', 'simple');
  app.use((_req, res, next) => {
    res.locals.requestId = randomUUID();
    res.set('X-Request-Id', res.locals.requestId);
    next();
  });
  // Public endpoints: the token in the path is the credential, and each reads its body with a
  // parser and limit of its own, so they come before the API-token middleware and the JSON parser.
  app.use('/v1/triggers', triggersRouter(deps));
  app.use('/v1/resume', resumeRouter(deps));
  app.use('/v1/approvals', approvalsRouter(deps));
  app.use(express.json({ limit: '1mb', strict: false, type: ['application/json', 'application/*+json'] }));

  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  app.use('/admin/v1', adminRouter(deps));
  app.use(DASHBOARD_PATH, queueDashboard(deps.queues, deps.config.adminToken));

  const v1 = express.Router();
  v1.use(requireApiToken(deps.pool));
  v1.use('/jobs', jobsRouter(deps));
  v1.use('/executions', executionsRouter(deps));
  v1.use('/dlq', dlqRouter(deps));
  v1.use('/secrets', secretsRouter(deps));
  v1.use('/signing-key', signingKeyRouter(deps));
  v1.use('/notification-deliveries', deliveriesRouter(deps));
  app.use('/v1', v1);

  app.use(notFoundRoute);
  app.use(errorHandler(deps.logger));
  return app;
}
