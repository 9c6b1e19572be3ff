import type { Request, RequestHandler, Response } from 'express';
import { AppError, createRateLimiter, hashToken, publicRateLimitKey, type Logger, type RateLimiter, type RateLimitState, type RateLimitStore } from '@cronsvc/core';

/** Counts one hit of `key`; null when the store did not answer in time (the caller lets the request through). */
export type LimitCounter = (key: string) => Promise<RateLimitState | null>;

/** A counter of `perMinute` hits per key, warning at most once a minute when its store does not answer in time. */
export function limitCounter(store: RateLimitStore, perMinute: number, logger: Logger): LimitCounter {
  const limiter: RateLimiter = createRateLimiter(store, perMinute);
  let warnedAt = 0;
  return async (key: string) => {
    const state = await limiter.hit(key);
    if (!state && Date.now() - warnedAt > 60_000) {
      warnedAt = Date.now();
      logger.warn('rate limit not applied: its store did not answer in time');
    }
    return state;
  };
}

/**
 * What RATE_LIMIT_PER_MINUTE counts a request under: its API token, by the token's hash. The
 * console counts a session's requests under the hash of the token it was opened with, so a token
 * has one count whether it is used through the API or the console.
 */
export const tokenLimitKey = (tokenHash: string) => `api-token:${tokenHash}`;

/** RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset, and past the limit Retry-After; whether the request may go on. */
export function applyLimitHeaders(res: Response, state: RateLimitState): boolean {
  res.set({ 'RateLimit-Limit': String(state.limit), 'RateLimit-Remaining': String(state.remaining), 'RateLimit-Reset': String(state.resetSeconds) });
  if (!state.allowed) res.set('Retry-After', String(state.resetSeconds));
  return state.allowed;
}

/**
 * RATE_LIMIT_PER_MINUTE on the API-token endpoints (mounted after requireApiToken, so only
 * valid tokens are counted and a flood of made-up tokens writes nothing). Every answer
 * carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset; past the limit, 429
 * rate_limited with Retry-After.
 */
export function rateLimit(hit: LimitCounter): RequestHandler {
  return async (req, res, next) => {
    const token = /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const state = await hit(tokenLimitKey(hashToken(token)));
    if (!state || applyLimitHeaders(res, state)) return next();
    throw new AppError('rate_limited', `this API token made more than ${state.limit} requests this minute (RATE_LIMIT_PER_MINUTE); retry in ${state.resetSeconds} s`);
  };
}

/** Whether the `:token` of the request is one the service handed out (looked up, or already found by an earlier handler). */
export type TokenKnown = (req: Request, res: Response) => boolean | Promise<boolean>;

/** Makes the limiting handler of a public route, given how that route tells a known token. */
export type PublicRateLimit = (known: TokenKnown) => RequestHandler;

/**
 * PUBLIC_RATE_LIMIT_PER_MINUTE on the public endpoints (token in the path): per known token, and
 * per client address for unknown ones, counted before the body is read; past the limit, 429
 * rate_limited with Retry-After, and the request does nothing. The answer is the same for known
 * and unknown tokens (no RateLimit-* headers), so it tells nothing about a token. With no limit
 * (`perMinute` undefined) the handler does nothing, not even the lookup.
 */
export function publicRateLimit(store: RateLimitStore, perMinute: number | undefined, logger: Logger): PublicRateLimit {
  if (perMinute === undefined) return () => (_req, _res, next) => next();
  const hit = limitCounter(store, perMinute, logger);
  return (known) => async (req, res, next) => {
    const token = req.params.token as string;
    const state = await hit(publicRateLimitKey(token, await known(req, res), req.socket.remoteAddress));
    if (state && !state.allowed) {
      res.set('Retry-After', String(state.resetSeconds));
      throw new AppError('rate_limited', `more than ${state.limit} requests this minute (PUBLIC_RATE_LIMIT_PER_MINUTE); retry in ${state.resetSeconds} s`);
    }
    next();
  };
}
