import type { ErrorCode, ErrorDetail, ErrorEnvelope } from '@cronsvc/contracts';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { AppError, isUnavailable, requestTooDeep, type Logger } from '@cronsvc/core';
import { redactedPath } from './public.js';

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

function sendAppError(res: Response, err: AppError): void {
  res.status(err.status).json(envelope(err.code, err.message, err.details));
}

/**
 * The one place errors become HTTP answers (the error envelope of the README): no stack traces
 * leave the process. What it logs names the path with the token of a public endpoint cut out:
 * the token is the credential, and logs are read by more people than hold it.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
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
    if (isUnavailable(err)) {
      logger.warn('dependency unavailable', { requestId: res.locals.requestId, method: req.method, path: redactedPath(req.path), error: (err as Error).message });
      res.set('Retry-After', '1').status(503).json(envelope('service_unavailable', 'the service is temporarily unavailable; try again'));
      return;
    }
    logger.error('unhandled error', { requestId: res.locals.requestId, method: req.method, path: redactedPath(req.path), error: err });
    res.status(500).json(envelope('internal_error', `internal error (request id ${res.locals.requestId})`));
  };
}
