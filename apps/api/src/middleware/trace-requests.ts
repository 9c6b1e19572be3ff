import type { RequestHandler } from 'express';
import type { Tracing } from '@cronsvc/core';
import { UNMATCHED } from '../routes/route-table.js';

// Probes and scrapes, every few seconds, would bury the requests worth reading.
const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The API request's span (docs/adr/030-spans-exported-over-otlp.md), mounted only when spans are
 * exported: the rest of the request runs within it, so the execution it creates puts it in that
 * execution's trace, and it is written when the answer is sent (or the client goes away). Named
 * by route pattern, never by path, which may hold a public token; a client's own `traceparent`
 * is kept as a link. Probes and scrapes (/healthz, /readyz, /metrics) have no span.
 */
export function traceRequests(tracing: Tracing, routeOf: (method: string, path: string) => string): RequestHandler {
  return (req, res, next) => {
    if (UNTRACED.has(req.path)) return next();
    const span = tracing.request({ incoming: req.get('traceparent') });
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const route = routeOf(req.method, req.originalUrl.split('?')[0]);
      // As the access log counts it: an answer cut off before it was sent has no status a client saw.
      const status = res.writableFinished ? res.statusCode : 499;
      const known = route !== UNMATCHED;
      span.end({
        name: known ? `${req.method} ${route}` : req.method,
        attributes: {
          'http.request.method': req.method,
          ...(known ? { 'http.route': route } : {}),
          'http.response.status_code': status,
          'cronsvc.request_id': String(res.locals.requestId ?? ''),
        },
        ...(status >= 500 ? { error: `status ${status}` } : {}),
      });
    };
    res.once('finish', finish);
    res.once('close', finish);
    span.within(next);
  };
}
