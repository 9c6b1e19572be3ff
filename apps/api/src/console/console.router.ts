import express, { Router, type RequestHandler, type Response } from 'express';
import { endConsoleSession, permits, type HttpClient, type Mailer } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { loadAssets } from './assets.js';
import { consoleErrors, consoleNotFound } from './console-errors.js';
import { sessionRateLimit, type ConsoleLimits } from './console-limits.js';
import { sendPage, viewContext, workspaceOf, type ConsoleDeps } from './context.js';
import { workspaceReads } from '../middleware/workspace-reads.js';
import { csrfMatches, CSRF_FIELD } from './csrf.js';
import { paths } from './paths.js';
import { accessRoutes } from './routes/access.routes.js';
import { channelsRoutes } from './routes/channels.routes.js';
import { deadLettersRoutes } from './routes/dead-letters.routes.js';
import { executionsRoutes } from './routes/executions.routes.js';
import { importRoutes } from './routes/import.routes.js';
import { jobsRoutes } from './routes/jobs.routes.js';
import { monitorsRoutes } from './routes/monitors.routes.js';
import { hostsRoutes } from './routes/hosts.routes.js';
import { secretsRoutes } from './routes/secrets.routes.js';
import { tagsRoutes } from './routes/tags.routes.js';
import { statusPagesRoutes } from './routes/status-pages.routes.js';
import { signInRoutes } from './routes/sign-in.routes.js';
import { clearSessionCookie, requireSession, signedIn } from './session.js';
import { actorOf, requirePermission, type RouteOf } from '../middleware/auth.js';
import { permissionOf } from '../routes/permissions.js';
import { problemView } from './views/problem.view.js';

/** On every console answer (docs/CONSOLE.md): no framing, scripts and styles only from here, nothing cached. */
export const CONSOLE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
  'X-Robots-Tag': 'noindex',
};

/** Every POST past sign-in carries the session's CSRF token; without it, 403 and nothing runs. */
function requireCsrf(deps: ConsoleDeps): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'POST' || csrfMatches(signedIn(res).csrf, req.body?.[CSRF_FIELD])) return next();
    const message = 'This form did not come from a page of this session (its CSRF token is missing or wrong). Nothing was changed; reload the page and try again.';
    sendPage(res, 403, problemView(viewContext(deps, req, res), deps.assets.urls, 'Refused', message));
  };
}

/**
 * The web console (docs/CONSOLE.md, ADR 015): server-rendered pages that call core's use cases
 * with the signed-in session's workspace.
 */
export function consoleRouter(
  api: ApiDeps, senders: { http: HttpClient; mailer: Mailer | null }, limits: ConsoleLimits, routes: { routeOf: RouteOf; exists: (method: string, pattern: string) => boolean },
): Router {
  const deps: ConsoleDeps = { ...api, senders, assets: loadAssets() };
  const router = Router();
  router.use((_req, res, next) => {
    res.set(CONSOLE_HEADERS);
    next();
  });
  router.get('/assets/:file', (req, res) => {
    const asset = deps.assets.files.get(req.params.file);
    if (!asset) return void res.status(404).type('text').send('no such file');
    res.set('Cache-Control', 'public, max-age=31536000, immutable').type(asset.type).send(asset.body);
  });
  // A job form with its longest step list (50 steps of up to 14 fields) stays under the field limit.
  router.use(express.urlencoded({ extended: false, limit: '1mb', parameterLimit: 1000 }));
  router.use(signInRoutes(deps, limits.signIn));
  router.use(requireSession(api.pool));
  router.use(sessionRateLimit(deps, limits.token));
  if (limits.reads) router.use(workspaceReads(limits.reads, workspaceOf));
  router.use(requireCsrf(deps));
  // The pages hide what the session's scope may not do; a POST to a hidden control is refused here.
  const refused = (res: Response, message: string) => sendPage(res, 403, problemView(viewContext(deps, res.req, res), deps.assets.urls, 'Not allowed', `${message}. Nothing was changed.`));
  router.use(requirePermission(routes, refused));
  router.use((_req, res, next) => {
    const actor = actorOf(res);
    res.locals.may = (path: string) => {
      const permission = permissionOf('POST', routes.routeOf('POST', path));
      return permission !== undefined && permits(actor, permission);
    };
    next();
  });

  router.get('/', (_req, res) => res.redirect(303, paths.jobs));
  router.post('/sign-out', async (_req, res) => {
    await endConsoleSession(api.pool, signedIn(res).sessionId);
    clearSessionCookie(res);
    res.redirect(303, `${paths.signIn}?signed_out=1`);
  });
  // Before the job routes, where `import` would be taken for a job id.
  router.use('/jobs/import', importRoutes(deps));
  router.use('/jobs', jobsRoutes(deps));
  router.use('/executions', executionsRoutes(deps));
  router.use('/dead-letters', deadLettersRoutes(deps));
  router.use('/monitors', monitorsRoutes(deps));
  router.use('/channels', channelsRoutes(deps));
  router.use('/secrets', secretsRoutes(deps));
  router.use(accessRoutes(deps));
  router.use('/hosts', hostsRoutes(deps));
  router.use('/tags', tagsRoutes(deps));
  router.use('/status-pages', statusPagesRoutes(deps));
  router.use(consoleNotFound(deps));
  router.use(consoleErrors(deps));
  return router;
}
