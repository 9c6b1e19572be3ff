import express, { type Express } from 'express';
import { createHttpClient, createMailer, MAX_REQUEST_JSON_DEPTH, SEND_TIMEOUT_MS, textNestedDeeperThan, type Deps, type Runtime } from '@cronsvc/core';
import { requireApiToken } from './middleware/auth.js';
import { rateLimit } from './middleware/rate-limit.js';
import { errorHandler, JsonTooDeep, notFoundRoute } from './middleware/errors.js';
import { observeRequests } from './middleware/observe-requests.js';
import { requestId } from './middleware/request-id.js';
import { routeNamer } from './routes/route-table.js';
import { adminRouter } from './routers/admin.router.js';
import { channelsRouter } from './routers/channels.router.js';
import { approvalsRouter } from './routers/approvals.router.js';
import { deliveriesRouter } from './routers/deliveries.router.js';
import { docsRouter } from './routers/docs.router.js';
import { dlqRouter } from './routers/dlq.router.js';
import { executionsRouter } from './routers/executions.router.js';
import { jobsRouter } from './routers/jobs.router.js';
import { monitorsRouter } from './routers/monitors.router.js';
import { operatorRouter } from './routers/operator.router.js';
import { pingRouter } from './routers/ping.router.js';
import { resumeRouter } from './routers/resume.router.js';
import { secretsRouter } from './routers/secrets.router.js';
import { triggersRouter } from './routers/triggers.router.js';
import { DASHBOARD_PATH, queueDashboard } from './routers/queue-dashboard.js';
import { signingKeyRouter } from './routers/signing-key.router.js';

/** `redis` is needed only with RATE_LIMIT_PER_MINUTE set (the counts are shared through it). */
export type ApiDeps = Deps & { redis?: Runtime['redis'] };

/** The HTTP API without a listening socket, so tests can drive it with supertest. */
export function createApp(deps: ApiDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.set('query parser', 'simple');
  // An ETag costs a hash of every response body; no client of this API sends If-None-Match.
  app.set('etag', false);
  const routeOf = routeNamer(app);
  app.use(requestId, observeRequests(deps.logger, routeOf));
  app.use(operatorRouter(deps));
  app.use(docsRouter(deps));
  // Public endpoints: the token in the path is the credential, and each reads its body with a
  // parser and limit of its own, so they come before the API-token middleware and the JSON parser.
  app.use('/v1/ping', pingRouter(deps));
  app.use('/v1/triggers', triggersRouter(deps));
  app.use('/v1/resume', resumeRouter(deps));
  app.use('/v1/approvals', approvalsRouter(deps));
  app.use(
    express.json({
      limit: '1mb',
      strict: false,
      type: ['application/json', 'application/*+json'],
      // Refused before parsing: whatever walks a value 200,000 levels deep overflows the stack.
      verify: (_req, _res, raw) => {
        if (textNestedDeeperThan(raw, MAX_REQUEST_JSON_DEPTH)) throw new JsonTooDeep();
      },
    }),
  );

  app.use('/admin/v1', adminRouter(deps));
  app.use(DASHBOARD_PATH, queueDashboard(deps.queues, { adminToken: deps.config.adminToken, actions: deps.config.queueDashboardActions }));

  // What the channel test sends with; a test opens its own SMTP connection.
  const senders = {
    http: createHttpClient({ allowPrivateTargets: deps.config.allowPrivateTargets }),
    mailer: deps.config.smtpUrl ? createMailer({ smtpUrl: deps.config.smtpUrl, from: deps.config.smtpFrom, timeoutMs: SEND_TIMEOUT_MS, pool: false }) : null,
  };
  const v1 = express.Router();
  v1.use(requireApiToken(deps.pool));
  // Nothing at all when the limit is off. Public endpoints (token in the path) and the admin API
  // are not API-token endpoints and are not limited.
  const perMinute = deps.config.rateLimitPerMinute;
  if (perMinute !== undefined) {
    const store = deps.redis ? { redis: deps.redis, prefix: deps.config.redisPrefix } : { pool: deps.pool };
    v1.use(rateLimit(store, perMinute, deps.logger));
  }
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
  app.use(errorHandler(deps.logger, routeOf));
  return app;
}
