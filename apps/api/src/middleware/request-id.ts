import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { withLogContext } from '@cronsvc/core';

// A client's own id is kept when it is safe to echo and to log as is.
const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * X-Request-Id on every answer, errors included: the client's value when it is 1-128 characters
 * of [A-Za-z0-9._:-], otherwise a new one. The rest of the request runs in a log scope that
 * puts it on every line as `request_id`, and executions it creates record it.
 */
export const requestId: RequestHandler = (req, res, next) => {
  const given = req.get('x-request-id');
  const id = given !== undefined && CLIENT_ID.test(given) ? given : randomUUID();
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  withLogContext({ requestId: id }, next);
};
