import { randomBytes } from 'node:crypto';
import { parse } from 'cookie';
import type { CookieOptions, Request, RequestHandler, Response } from 'express';
import { consoleActor, findConsoleSession, SESSION_LIFETIME_MS, type ConsoleSession, type SqlPool } from '@cronsvc/core';
import { csrfToken } from './csrf.js';
import { CONSOLE_PATH, paths } from './paths.js';

/** Where the service is reached, which decides whether cookies are Secure. */
type PublicBase = { publicBaseUrl: string };

export const SESSION_COOKIE = 'cronsvc_console';
/** The sign-in form's double-submit token, which stops another site from signing a browser in. */
export const SIGN_IN_COOKIE = 'cronsvc_console_sign_in';
const SIGN_IN_LIFETIME_MS = 10 * 60 * 1000;

export interface SignedIn {
  sessionId: string;
  session: ConsoleSession;
  csrf: string;
}

export function readCookie(req: Request, name: string): string | undefined {
  return req.headers.cookie ? parse(req.headers.cookie)[name] : undefined;
}

/** HttpOnly, SameSite=Strict, only under the console's path; Secure when the service is reached over https. */
function cookieOptions(config: PublicBase, maxAge: number): CookieOptions {
  return { httpOnly: true, sameSite: 'strict', secure: config.publicBaseUrl.startsWith('https:'), path: CONSOLE_PATH, maxAge };
}

export function setSessionCookie(res: Response, config: PublicBase, sessionId: string): void {
  res.cookie(SESSION_COOKIE, sessionId, cookieOptions(config, SESSION_LIFETIME_MS));
  res.clearCookie(SIGN_IN_COOKIE, { path: CONSOLE_PATH });
}

export function clearSessionCookie(res: Response): void {
  res.clearCookie(SESSION_COOKIE, { path: CONSOLE_PATH });
}

/** The sign-in form's token: the cookie's, or a new one set now. */
export function signInToken(req: Request, res: Response, config: PublicBase): string {
  const known = readCookie(req, SIGN_IN_COOKIE);
  if (known && /^[A-Za-z0-9_-]{43}$/.test(known)) return known;
  const token = randomBytes(32).toString('base64url');
  res.cookie(SIGN_IN_COOKIE, token, cookieOptions(config, SIGN_IN_LIFETIME_MS));
  return token;
}

export const signedIn = (res: Response) => res.locals.console as SignedIn;

/** Sends a browser without a live session to the sign-in page, remembering where it was going. */
function toSignIn(req: Request, res: Response): void {
  const next = req.method === 'GET' ? `?next=${encodeURIComponent(req.originalUrl)}` : '';
  const target = `${paths.signIn}${next}`;
  // An htmx request would follow the redirect inside the page; this makes the whole page go.
  if (req.get('HX-Request')) res.set('HX-Redirect', target).status(204).end();
  else res.redirect(303, target);
}

/** Every page past sign-in: the session from the cookie (and its actor), or off to sign in. */
export function requireSession(pool: SqlPool): RequestHandler {
  return async (req, res, next) => {
    const sessionId = readCookie(req, SESSION_COOKIE);
    const session = sessionId ? await findConsoleSession(pool, sessionId) : null;
    if (!sessionId || !session) return toSignIn(req, res);
    res.locals.console = { sessionId, session, csrf: csrfToken(sessionId) } satisfies SignedIn;
    res.locals.actor = consoleActor(session);
    next();
  };
}
