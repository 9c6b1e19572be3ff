import type { RequestHandler } from 'express';
import { AppError } from '@cronsvc/core';

/** Any other method or path under a public prefix: 404, without asking for an API token it does not take. */
export const publicNotFound: RequestHandler = (req) => {
  throw new AppError('not_found', `no route for ${req.method} ${req.originalUrl.split('?')[0]}`);
};
