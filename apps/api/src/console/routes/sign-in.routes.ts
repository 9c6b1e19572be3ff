import { Router } from 'express';
import { findConsoleSession, openConsoleSession } from '@cronsvc/core';
import type { LimitCounter } from '../../middleware/rate-limit.js';
import { signInRateLimit } from '../console-limits.js';
import { sendPage, type ConsoleDeps } from '../context.js';
import { csrfMatches } from '../csrf.js';
import { paths, safeReturnPath } from '../paths.js';
import { readCookie, SESSION_COOKIE, setSessionCookie, signInToken, SIGN_IN_COOKIE } from '../session.js';
import { signInView } from '../views/sign-in.view.js';

/** Sign in with a workspace API token; the token starts a session and is not kept. */
export function signInRoutes(deps: ConsoleDeps, limit: LimitCounter | undefined): Router {
  const router = Router();
  const assets = deps.assets.urls;

  router.get('/sign-in', async (req, res) => {
    const current = readCookie(req, SESSION_COOKIE);
    if (current && (await findConsoleSession(deps.pool, current))) return res.redirect(303, paths.jobs);
    const next = safeReturnPath(req.query.next);
    const notice = req.query.signed_out === '1' ? 'You are signed out.' : undefined;
    sendPage(res, 200, signInView(assets, { csrf: signInToken(req, res, deps.config), next, notice }));
  });

  router.post('/sign-in', signInRateLimit(deps, limit), async (req, res) => {
    const next = safeReturnPath(req.body?.next);
    const again = (status: number, error: string) => sendPage(res, status, signInView(assets, { csrf: signInToken(req, res, deps.config), next, error }));
    const expected = readCookie(req, SIGN_IN_COOKIE);
    if (!expected || !csrfMatches(expected, req.body?._csrf)) return again(403, 'This sign-in form has expired. Enter the token again.');
    const token = typeof req.body?.token === 'string' ? req.body.token.trim() : '';
    if (token === '') return again(400, 'Enter an API token.');
    const sessionId = await openConsoleSession(deps.pool, token);
    if (!sessionId) return again(400, 'That is not a valid API token.');
    setSessionCookie(res, deps.config, sessionId);
    res.redirect(303, next ?? paths.jobs);
  });
  return router;
}
