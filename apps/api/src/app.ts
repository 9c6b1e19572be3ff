import { randomUUID } from 'node:crypto';
import express, { type Express } from 'express';
import { createHttpClient, createMailer, SEND_TIMEOUT_MS, type Deps } from '@cronsvc/core';
import { requireApiToken } from './middleware/auth.js';
import { errorHandler, notFoundRoute } from './middleware/errors.js';
import { adminRouter } from './routers/admin.router.js';
import { channelsRouter } from './routers/channels.router.js';
import { deliveriesRouter } from './routers/deliveries.router.js';
import { dlqRouter } from './routers/dlq.router.js';
import { executionsRouter } from './routers/executions.router.js';
import { jobsRouter } from './routers/jobs.router.js';
import { monitorsRouter } from './routers/monitors.router.js';
import { pingRouter } from './routers/ping.router.js';
import { secretsRouter } from './routers/secrets.router.js';
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
  // Public, and before the JSON parser: pings have a small body limit of their own.
  app.use('/v1/ping', pingRouter(deps));
  app.use(express.json({ limit: '1mb', strict: false, type: ['application/json', 'application/*+json'] }));

  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  app.use('/admin/v1', adminRouter(deps));
  app.use(DASHBOARD_PATH, queueDashboard(deps.queues, deps.config.adminToken));

  // What the channel test sends with; a test opens its own SMTP connection.
  const senders = {
    http: createHttpClient({ allowPrivateTargets: deps.config.allowPrivateTargets }),
    mailer: deps.config.smtpUrl ? createMailer({ smtpUrl: deps.config.smtpUrl, from: deps.config.smtpFrom, timeoutMs: SEND_TIMEOUT_MS, pool: false }) : null,
  };
  const v1 = express.Router();
  v1.use(requireApiToken(deps.pool));
  v1.use('/jobs', jobsRouter(deps));
  v1.use('/executions', executionsRouter(deps));
  v1.use('/dlq', dlqRouter(deps));
  v1.use('/secrets', secretsRouter(deps));
  v1.use('/signing-key', signingKeyRouter(deps));
  v1.use('/notification-deliveries', deliveriesRouter(deps));
  v1.use('/notification-channels', channelsRouter(deps, senders));
  v1.use('/monitors', monitorsRouter(deps));
  app.use('/v1', v1);

  app.use(notFoundRoute);
  app.use(errorHandler(deps.logger));
  return app;
}
