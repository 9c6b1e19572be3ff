import express, { type RequestHandler } from 'express';
import { MAX_REQUEST_JSON_DEPTH, textNestedDeeperThan } from '@cronsvc/core';
import { JsonTooDeep } from './errors.js';

/**
 * The JSON body parser of every JSON endpoint: up to `limit`, any JSON value at the top, and
 * refused before parsing when nested deeper than MAX_REQUEST_JSON_DEPTH, since whatever walks a
 * value 200,000 levels deep overflows the stack.
 */
export function jsonBody(limit: string): RequestHandler {
  return express.json({
    limit,
    strict: false,
    type: ['application/json', 'application/*+json'],
    verify: (_req, _res, raw) => {
      if (textNestedDeeperThan(raw, MAX_REQUEST_JSON_DEPTH)) throw new JsonTooDeep();
    },
  });
}
