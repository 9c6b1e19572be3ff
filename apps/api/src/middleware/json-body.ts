import express, { type RequestHandler } from 'express';
import { AppError, MAX_REQUEST_JSON_DEPTH, textNestedDeeperThan } from '@cronsvc/core';
import { JsonTooDeep } from './errors.js';

const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * The JSON body parser of every JSON endpoint: up to `limit`, any JSON value at the top, and
 * refused before parsing when nested deeper than MAX_REQUEST_JSON_DEPTH, since whatever walks a
 * value 200,000 levels deep overflows the stack.
 */
export function jsonBody(limit: string): RequestHandler {
  return express.json({
    limit,
    strict: false,
    type: JSON_TYPES,
    verify: (_req, _res, raw) => {
      if (textNestedDeeperThan(raw, MAX_REQUEST_JSON_DEPTH)) throw new JsonTooDeep();
    },
  });
}

/** A request body on a JSON route must say it is JSON: anything else is a 415 naming the type expected. */
export const jsonBodiesOnly: RequestHandler = (req, _res, next) => {
  const hasBody = req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';
  if (hasBody && !req.is(JSON_TYPES)) {
    const given = req.get('content-type');
    throw new AppError('unsupported_media_type', `the request body must be JSON: send it with Content-Type: application/json (${given ? `not ${given}` : 'it had no Content-Type'})`);
  }
  next();
};
