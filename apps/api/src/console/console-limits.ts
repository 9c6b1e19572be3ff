import type { RequestHandler } from 'express';
import { clientNetwork } from '@cronsvc/core';
import type { KeyedGate } from '../middleware/keyed-gate.js';
import { applyLimitHeaders, tokenLimitKey, type LimitCounter } from '../middleware/rate-limit.js';
import { sendPage, viewContext, type ConsoleDeps } from './context.js';
import { signedIn, signInToken } from './session.js';
import { problemView } from './views/problem.view.js';
import { signInView } from './views/sign-in.view.js';
import { safeReturnPath } from './paths.js';

/** The limits the console shares with the API; each is undefined when it is off. */
export interface ConsoleLimits {
  /** RATE_LIMIT_PER_MINUTE, counted per API token (the API's own counter). */
  token?: LimitCounter;
  /** CONSOLE_SIGN_IN_PER_MINUTE, counted per client address. */
  signIn?: LimitCounter;
  /** The API's gate of reads in progress per workspace, which the console's pages share. */
  reads?: KeyedGate;
}

/**
 * RATE_LIMIT_PER_MINUTE on every page and form of a session: its requests count for the API token
 * it was opened with, in the API's own count, so the console is no way around the limit. Past it,
 * a 429 page with Retry-After, and the form's change is not made.
 */
export function sessionRateLimit(deps: ConsoleDeps, hit: LimitCounter | undefined): RequestHandler {
  return async (req, res, next) => {
    if (!hit) return next();
    const state = await hit(tokenLimitKey(signedIn(res).session.tokenHash));
    if (!state || applyLimitHeaders(res, state)) return next();
    const message = `This API token made more than ${state.limit} requests this minute, in the console and the API together (RATE_LIMIT_PER_MINUTE). Nothing was changed; try again in ${state.resetSeconds} s.`;
    sendPage(res, 429, problemView(viewContext(deps, req, res), deps.assets.urls, 'Too many requests', message));
  };
}

/**
 * CONSOLE_SIGN_IN_PER_MINUTE: sign-in attempts counted per client address (an IPv6 client by its
 * /64) before anything else is done with them. Past it, the form again with a 429, and no token
 * is looked up and no session opened.
 */
export function signInRateLimit(deps: ConsoleDeps, hit: LimitCounter | undefined): RequestHandler {
  return async (req, res, next) => {
    if (!hit) return next();
    const state = await hit(`console-sign-in:${clientNetwork(req.socket.remoteAddress)}`);
    if (!state || state.allowed) return next();
    res.set('Retry-After', String(state.resetSeconds));
    const error = `Too many sign-in attempts from your address (more than ${state.limit} a minute). Try again in ${state.resetSeconds} s.`;
    sendPage(res, 429, signInView(deps.assets.urls, { csrf: signInToken(req, res, deps.config), next: safeReturnPath(req.body?.next), error }));
  };
}
