import type { Request, Response } from 'express';
import type { HttpClient, Mailer } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import type { Assets } from './assets.js';
import type { Html } from './html.js';
import { noticeFor } from './notices.js';
import { signedIn } from './session.js';
import type { ViewContext } from './views/layout.js';

/** What the console's routes use: the API's dependencies, the channel test's senders, the assets. */
export interface ConsoleDeps extends ApiDeps {
  senders: { http: HttpClient; mailer: Mailer | null };
  assets: Assets;
}

/** The workspace of the signed-in session: every use case is called with it, never with an id from the form. */
export const workspaceOf = (res: Response) => signedIn(res).session.workspaceId;

/** A query value the console reads: one string, or nothing. */
export const queryText = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

export function viewContext(deps: ConsoleDeps, req: Request, res: Response): ViewContext {
  const { csrf, session } = signedIn(res);
  const may = res.locals.may as ViewContext['may'];
  return { csrf, workspaceName: session.workspaceName, now: deps.clock.now(), assets: deps.assets.urls, notice: noticeFor(req.query), may };
}

export function sendPage(res: Response, status: number, body: Html): void {
  // An Html fragment is a String object (it carries its escaped mark); Express would send an object as JSON.
  res.status(status).type('html').send(body.toString());
}

/** After a change: back to a page (303, so a reload does not post again), saying what was done. */
export function redirectDone(res: Response, path: string, done: string, extra: Record<string, string> = {}): void {
  const query = new URLSearchParams({ done, ...extra });
  res.redirect(303, `${path}${path.includes('?') ? '&' : '?'}${query}`);
}
