import type { RequestHandler } from 'express';
import { httpRequestDuration, httpRequests, type Logger } from '@cronsvc/core';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * One access-log line per request at the `http` level (method, route pattern, status, duration,
 * request id) and the request metrics. Both name the route by its pattern (`/v1/triggers/:token`),
 * never by the path, which would log public tokens and make one series per id.
 */
export function observeRequests(logger: Logger, routeOf: (method: string, path: string) => string): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const method = METHODS.has(req.method) ? req.method : 'OTHER';
      const route = routeOf(req.method, req.originalUrl.split('?')[0]);
      // An answer cut off before it was sent (the client went away) has no status a client saw.
      const status = res.writableFinished ? res.statusCode : 499;
      httpRequests.inc({ method, route, status_code: String(status) });
      httpRequestDuration.observe({ method, route }, seconds);
      // winston builds an entry before it looks at the level: skipped outright when `http` is off.
      if (logger.isLevelEnabled('http')) {
        logger.http('request', { method, route, status, durationMs: Math.round(seconds * 10_000) / 10, request_id: res.locals.requestId });
      }
    };
    res.once('finish', finish);
    res.once('close', finish);
    next();
  };
}
