import type { RequestHandler } from 'express';
import { AppError, createRateLimiter, type Logger, type RateLimitStore } from '@cronsvc/core';

/**
 * RATE_LIMIT_PER_MINUTE on the API-token endpoints (mounted after requireApiToken, so only
 * valid tokens are counted and a flood of made-up tokens writes nothing). Every answer
 * carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset; past the limit, 429
 * rate_limited with Retry-After.
 */
export function rateLimit(store: RateLimitStore, perMinute: number, logger: Logger): RequestHandler {
  const limiter = createRateLimiter(store, perMinute);
  let warnedAt = 0;
  return async (req, res, next) => {
    const token = /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const state = await limiter.hit(token);
    if (!state) {
      // At most one warning a minute while the store does not answer.
      if (Date.now() - warnedAt > 60_000) {
        warnedAt = Date.now();
        logger.warn('rate limit not applied: its store did not answer in time');
      }
      return next();
    }
    res.set({ 'RateLimit-Limit': String(state.limit), 'RateLimit-Remaining': String(state.remaining), 'RateLimit-Reset': String(state.resetSeconds) });
    if (!state.allowed) {
      res.set('Retry-After', String(state.resetSeconds));
      throw new AppError('rate_limited', `this API token made more than ${state.limit} requests this minute (RATE_LIMIT_PER_MINUTE); retry in ${state.resetSeconds} s`);
    }
    next();
  };
}
