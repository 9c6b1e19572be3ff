import express, { type Express } from 'express';
import { createHttpClient, createMailer, SEND_TIMEOUT_MS, type Deps, type Runtime } from '@cronsvc/core';
import { refuseWithError, requireApiToken, requirePermission } from './middleware/auth.js';
import { jsonBodiesOnly, jsonBody } from './middleware/json-body.js';
import { PUBLIC_PREFIXES } from './middleware/public.js';
import { limitCounter, publicRateLimit, rateLimit } from './middleware/rate-limit.js';
import { errorHandler, notFoundRoute, nulInPath } from './middleware/errors.js';
import { observeRequests } from './middleware/observe-requests.js';
import { traceRequests } from './middleware/trace-requests.js';
import { workspaceReadGate, workspaceReads } from './middleware/workspace-reads.js';
import { requestId } from './middleware/request-id.js';
import { routeExists, routeNamer } from './routes/route-table.js';
import { lazyRouter } from './middleware/lazy-router.js';
import { adminRouter } from './routers/admin.router.js';
import { channelsRouter } from './routers/channels.router.js';
import { approvalsRouter } from './routers/approvals.router.js';
import { deliveriesRouter } from './routers/deliveries.router.js';
import { docsRouter } from './routers/docs.router.js';
import { dlqRouter } from './routers/dlq.router.js';
import { executionsRouter } from './routers/executions.router.js';
import { firesRouter } from './routers/fires.router.js';
import { jobsRouter } from './routers/jobs.router.js';
import { monitorsRouter } from './routers/monitors.router.js';
import { operatorRouter } from './routers/operator.router.js';
import { pingRouter } from './routers/ping.router.js';
import { notificationRulesRouter } from './routers/notification-rules.router.js';
import { snoozeRouter } from './routers/snooze.router.js';
import { badgesRouter } from './routers/badges.router.js';
import { publicStatusRouter, statusPagesRouter } from './routers/status-pages.router.js';
import { resumeRouter } from './routers/resume.router.js';
import { hostLimitsRouter } from './routers/host-limits.router.js';
import { secretsRouter } from './routers/secrets.router.js';
import { triggersRouter } from './routers/triggers.router.js';
import { dashboardGate, DASHBOARD_PATH } from './routers/dashboard-gate.js';
import { signingKeyRouter } from './routers/signing-key.router.js';
import { auditEventsRouter } from './routers/audit-events.router.js';
import { tokensRouter } from './routers/tokens.router.js';
import { tagsRouter } from './routers/tags.router.js';
import { CONSOLE_PATH } from './console/paths.js';

/**
 * `redis` holds the counts of RATE_LIMIT_PER_MINUTE and PUBLIC_RATE_LIMIT_PER_MINUTE, shared by
 * every API process; without it they are kept in Postgres.
 */
export type ApiDeps = Deps & { redis?: Runtime['redis'] };

/** The HTTP API without a listening socket, so tests can drive it with supertest. */
export function createApp(deps: ApiDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.set('query parser', 'simple');
  // An ETag costs a hash of every response body; no client of this API sends If-None-Match.
  app.set('etag', false);
  // What the channel test sends with; a test opens its own SMTP connection.
  const senders = {
    http: createHttpClient({ allowPrivateTargets: deps.config.allowPrivateTargets }),
    mailer: deps.config.smtpUrl ? createMailer({ smtpUrl: deps.config.smtpUrl, from: deps.config.smtpFrom, timeoutMs: SEND_TIMEOUT_MS, pool: false }) : null,
  };
  // Bumped when a lazily built router (the console, the queue dashboard) comes in: the route tables read the app again.
  const routeVersion = { current: 0 };
  const lazy = (build: () => Promise<express.Router>) => lazyRouter(build, () => void (routeVersion.current += 1));
  const routeOf = routeNamer(app, routeVersion);
  // Every route's permission, from one table (apps/api/src/routes/permissions.ts), for the API and the console.
  const routes = { routeOf, exists: routeExists(app, routeVersion) };
  app.use(requestId, observeRequests(deps.logger, routeOf));
  // Nothing at all unless spans are exported (OTEL_EXPORTER_OTLP_ENDPOINT).
  if (deps.tracing) app.use(traceRequests(deps.tracing, routeOf));
  app.use(operatorRouter(deps));
  app.use(docsRouter(deps));
  const limitStore = deps.redis ? { redis: deps.redis, prefix: deps.config.redisPrefix } : { pool: deps.pool };
  // Public endpoints: the token in the path is the credential, and each looks its token up and
  // counts the request before it reads its body, with a parser and limit of its own, so they come
  // before the API-token middleware and the JSON parser. A trigger answers alike for every token,
  // even one no job could have, so it comes before the NUL check; everything after it answers 404
  // to a path holding NUL.
  const limitPublic = publicRateLimit(limitStore, deps.config.publicRateLimitPerMinute, deps.logger);
  // One count per API token, whether it is used through the API or a console session opened with it.
  const { rateLimitPerMinute, consoleSignInPerMinute } = deps.config;
  const tokenLimit = rateLimitPerMinute === undefined ? undefined : limitCounter(limitStore, rateLimitPerMinute, deps.logger);
  const signInLimit = consoleSignInPerMinute === undefined ? undefined : limitCounter(limitStore, consoleSignInPerMinute, deps.logger);
  app.use(PUBLIC_PREFIXES.triggers, triggersRouter(deps, limitPublic));
  app.use(nulInPath);
  app.use(PUBLIC_PREFIXES.ping, pingRouter(deps, limitPublic));
  app.use(PUBLIC_PREFIXES.resume, resumeRouter(deps, limitPublic));
  app.use(PUBLIC_PREFIXES.approvals, approvalsRouter(deps, limitPublic));
  app.use(PUBLIC_PREFIXES.snooze, snoozeRouter(deps, limitPublic));
  app.use(PUBLIC_PREFIXES.badges, badgesRouter(deps, limitPublic));
  app.use(PUBLIC_PREFIXES.status, publicStatusRouter(deps, limitPublic));
  // The web console reads its own forms and answers with pages, not the JSON error envelope.
  // One workspace's reads in progress at once are bounded in this process, in the API and the console together.
  const reads = workspaceReadGate();
  // Built on its first request, as the queue dashboard: an API that serves no console does not hold it in memory.
  app.use(CONSOLE_PATH, lazy(async () => (await import('./console/console.router.js')).consoleRouter(deps, senders, { token: tokenLimit, signIn: signInLimit, reads }, routes)));
  app.use(['/v1', '/admin/v1'], jsonBodiesOnly);
  app.use(jsonBody('1mb'));

  app.use('/admin/v1', adminRouter(deps));
  const actions = deps.config.queueDashboardActions;
  app.use(DASHBOARD_PATH, dashboardGate(deps.config.adminToken), lazy(async () => (await import('./routers/queue-dashboard.js')).queueDashboard(deps.queues, { actions })));

  const v1 = express.Router();
  v1.use(requireApiToken(deps.pool), requirePermission(routes, refuseWithError));
  // Nothing at all when the limit is off. Public endpoints (token in the path) and the admin API
  // are not API-token endpoints and are not limited.
  if (tokenLimit) v1.use(rateLimit(tokenLimit));
  v1.use(workspaceReads(reads, (res) => res.locals.workspaceId as string));
  v1.use('/jobs', jobsRouter(deps));
  v1.use('/executions', executionsRouter(deps));
  v1.use('/fires', firesRouter(deps));
  v1.use('/dlq', dlqRouter(deps));
  v1.use('/secrets', secretsRouter(deps));
  v1.use('/signing-key', signingKeyRouter(deps));
  v1.use('/notification-deliveries', deliveriesRouter(deps));
  v1.use('/notification-channels', channelsRouter(deps, senders));
  v1.use('/notification-rules', notificationRulesRouter(deps));
  v1.use('/monitors', monitorsRouter(deps));
  v1.use('/tokens', tokensRouter(deps));
  v1.use('/audit-events', auditEventsRouter(deps));
  v1.use('/host-limits', hostLimitsRouter(deps));
  v1.use('/tags', tagsRouter(deps));
  v1.use('/status-pages', statusPagesRouter(deps));
  app.use('/v1', v1);

  app.use(notFoundRoute);
  app.use(errorHandler(deps.logger, routeOf));
  return app;
}
