import type { ErrorCode, ErrorDetail, ErrorEnvelope } from '@cronsvc/contracts';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { AppError, isUnavailable, requestTooDeep, type Logger } from '@cronsvc/core';
import { allowedMethods } from './allowed-methods.js';

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

/**
 * The end of every router: a path the API has with another method is a 405 naming the methods
 * it has (`Allow`), anything else a 404. Public routers end with it too, so an unknown path under
 * a public prefix never asks for an API token it does not take.
 */
export const notFoundRoute: RequestHandler = (req, res) => {
  const path = req.originalUrl.split('?')[0];
  const allowed = allowedMethods(req.app, path);
  if (allowed.length > 0 && !allowed.includes('*')) {
    res.set('Allow', allowed.join(', '));
    throw new AppError('method_not_allowed', `${req.method} is not allowed on ${path}; use ${allowed.join(', ')}`);
  }
  throw new AppError('not_found', `no route for ${req.method} ${path}`);
};

/** PostgreSQL cannot hold NUL, so no id or token holds one: a path with it names nothing. */
export const nulInPath: RequestHandler = (req, _res, next) => {
  if (req.path.includes('%00')) throw new AppError('not_found', 'not found: no id or token holds a NUL character');
  next();
};

/**
 * Any other error a body parser raised about the request itself (http-errors marks those it may
 * show with a 4xx status): a gzip body that does not inflate, a form with too many fields, a body
 * shorter than its Content-Length. The client's mistake, so a 4xx like the ones above, never a 500.
 */
function unreadableBody(err: unknown, contentEncoding: string | undefined): AppError | null {
  const { status, expose } = err as { status?: unknown; expose?: unknown };
  if (expose !== true || typeof status !== 'number' || status < 400 || status > 499) return null;
  if (status === 413) return new AppError('payload_too_large', `request body is too large (${(err as Error).message})`);
  if (status === 415) return new AppError('unsupported_media_type', (err as Error).message);
  // A stream that does not inflate is reported by zlib (Z_DATA_ERROR and the like), in words no client needs.
  if ((err as { code?: unknown }).code?.toString().startsWith('Z_')) return new AppError('invalid_json', `request body is not valid ${contentEncoding} data (Content-Encoding: ${contentEncoding})`);
  return new AppError('invalid_json', `request body could not be read: ${(err as Error).message}`);
}

function sendAppError(res: Response, err: AppError): void {
  res.status(err.status).json(envelope(err.code, err.message, err.details));
}

/**
 * The one place errors become HTTP answers, in the envelope of docs/API.md: no stack traces
 * leave the process. What it logs names the route pattern (`/v1/triggers/:token`), never the
 * path: a public endpoint's token is its credential, and logs are read by more people than hold it.
 */
export function errorHandler(logger: Logger, routeOf: (method: string, path: string) => string): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const where = () => ({ request_id: res.locals.requestId, method: req.method, route: routeOf(req.method, req.originalUrl.split('?')[0]) });
    if (err instanceof AppError) return sendAppError(res, err);
    // The router could not percent-decode a path parameter: the client's mistake, not ours.
    if (err instanceof URIError && (err as { status?: number }).status === 400) {
      const message = 'the path is not valid percent-encoded UTF-8';
      return sendAppError(res, new AppError('validation_failed', message, [{ path: 'request.url', message }]));
    }
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') {
      res.status(413).json(envelope('payload_too_large', `request body is larger than ${sizeLimit((err as { limit?: number }).limit)}`));
      return;
    }
    if (type === 'entity.verify.failed' && err instanceof JsonTooDeep) return sendAppError(res, requestTooDeep());
    if (type === 'entity.parse.failed') {
      res.status(400).json(envelope('invalid_json', 'request body is not valid JSON'));
      return;
    }
    if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
      res.status(400).json(envelope('invalid_json', (err as Error).message));
      return;
    }
    const unreadable = unreadableBody(err, req.get('content-encoding'));
    if (unreadable) return sendAppError(res, unreadable);
    if (isUnavailable(err)) {
      logger.warn('dependency unavailable', { ...where(), error: (err as Error).message });
      res.set('Retry-After', '1').status(503).json(envelope('service_unavailable', 'the service is temporarily unavailable; try again'));
      return;
    }
    logger.error('unhandled error', { ...where(), error: err });
    res.status(500).json(envelope('internal_error', `internal error (request id ${res.locals.requestId})`));
  };
}
