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
 * What the form parser refused about the request itself (http-errors marks those it may show with a
 * 4xx): too large, too many fields, an encoding or charset it does not read, a compressed body that
 * does not inflate. The client's doing, so a page saying so with that status, never a 500.
 */
function unreadableForm(err: unknown): { status: number; title: string; message: string } | null {
  const { status, expose, type } = err as { status?: unknown; expose?: unknown; type?: unknown };
  if (expose !== true || typeof status !== 'number' || status < 400 || status > 499) return null;
  if (type === 'entity.too.large') return { status, title: 'Too large', message: 'The form was larger than 1 MiB.' };
  if (type === 'parameters.too.many') return { status, title: 'Too large', message: 'The form had too many fields.' };
  if (status === 415) return { status, title: 'Not a form', message: `The form was sent in a way the console does not read (${(err as Error).message}). Nothing was changed.` };
  return { status, title: 'Not a form', message: 'The form could not be read. Nothing was changed; reload the page and try again.' };
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
    // The router could not percent-decode a path parameter: the address is the client's mistake.
    if (err instanceof URIError && (err as { status?: number }).status === 400) {
      return render(deps, req, res, 400, 'Not found', 'The address is not valid percent-encoded UTF-8, so it names no page of the console.');
    }
    const unreadable = unreadableForm(err);
    if (unreadable) return render(deps, req, res, unreadable.status, unreadable.title, unreadable.message);
    deps.logger.error('console error', { requestId: res.locals.requestId, path: req.path, error: err });
    render(deps, req, res, 500, 'Something went wrong', `The console could not do that (request id ${res.locals.requestId}).`);
  };
}
