import type { ErrorCode, ErrorDetail, ErrorEnvelope } from '@cronsvc/contracts';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, isUnavailable, MAX_REQUEST_JSON_DEPTH, type Logger } from '@cronsvc/core';

/** Thrown by the JSON parser's verify step; a plain Error, since body-parser rewrites its status. */
export class JsonTooDeep extends Error {}

function envelope(code: ErrorCode, message: string, details?: ErrorDetail[]): ErrorEnvelope {
  return { error: { code, message, ...(details ? { details } : {}) } };
}

/** A body parser's limit in words: each endpoint has its own (1 MiB unless it says otherwise). */
function sizeLimit(bytes: number | undefined): string {
  if (!bytes || bytes % 1024 !== 0) return bytes ? `${bytes} bytes` : 'the limit';
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`;
}

export const notFoundRoute: RequestHandler = (req, res) => {
  res.status(404).json(envelope('not_found', `no route for ${req.method} ${req.path}`));
};

/**
 * The one place errors become HTTP answers (DECISIONS D3): no stack traces leave the process.
 * Logs name the route pattern, never the path, which may hold a public token.
 */
export function errorHandler(logger: Logger, routeOf: (method: string, path: string) => string): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const where = () => ({ request_id: res.locals.requestId, method: req.method, route: routeOf(req.method, req.originalUrl.split('?')[0]) });
    if (err instanceof AppError) {
      res.status(err.status).json(envelope(err.code, err.message, err.details));
      return;
    }
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') {
      res.status(413).json(envelope('payload_too_large', `request body is larger than ${sizeLimit((err as { limit?: number }).limit)}`));
      return;
    }
    if (type === 'entity.verify.failed' && err instanceof JsonTooDeep) {
      const message = `request body must not be nested deeper than ${MAX_REQUEST_JSON_DEPTH} levels`;
      res.status(400).json(envelope('validation_failed', message, [{ path: '(body)', message }]));
      return;
    }
    if (type === 'entity.parse.failed') {
      res.status(400).json(envelope('invalid_json', 'request body is not valid JSON'));
      return;
    }
    if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
      res.status(400).json(envelope('invalid_json', (err as Error).message));
      return;
    }
    if (isUnavailable(err)) {
      logger.warn('dependency unavailable', { ...where(), error: (err as Error).message });
      res.set('Retry-After', '1').status(503).json(envelope('service_unavailable', 'the service is temporarily unavailable; try again'));
      return;
    }
    logger.error('unhandled error', { ...where(), error: err });
    res.status(500).json(envelope('internal_error', `internal error (request id ${res.locals.requestId})`));
  };
}
