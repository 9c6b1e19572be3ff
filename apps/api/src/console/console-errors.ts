import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { AppError } from '@cronsvc/core';
import { sendPage, viewContext, type ConsoleDeps } from './context.js';
import { problemView } from './views/problem.view.js';

function render(deps: ConsoleDeps, req: Request, res: Response, status: number, title: string, message: string): void {
  const ctx = res.locals.console ? viewContext(deps, req, res) : null;
  sendPage(res, status, problemView(ctx, deps.assets.urls, title, message));
}

/** A console path that is no page. */
export function consoleNotFound(deps: ConsoleDeps): RequestHandler {
  return (req, res) => render(deps, req, res, 404, 'Not found', 'There is no such page in the console.');
}

/**
 * Errors as pages: the use cases' own messages (another workspace's object is "not found", like a
 * missing one); anything unexpected is logged with its request id and shown without internals.
 */
export function consoleErrors(deps: ConsoleDeps): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (err instanceof AppError) {
      const title = err.code === 'not_found' ? 'Not found' : 'That did not work';
      const message = err.code === 'not_found' ? `The ${err.message.replace(/ not found$/, '')} was not found in this workspace.` : err.message;
      return render(deps, req, res, err.status, title, message);
    }
    if ((err as { type?: string }).type === 'entity.too.large') return render(deps, req, res, 413, 'Too large', 'The form was larger than 1 MiB.');
    if ((err as { type?: string }).type === 'parameters.too.many') return render(deps, req, res, 413, 'Too large', 'The form had too many fields.');
    deps.logger.error('console error', { requestId: res.locals.requestId, path: req.path, error: err });
    render(deps, req, res, 500, 'Something went wrong', `The console could not do that (request id ${res.locals.requestId}).`);
  };
}
