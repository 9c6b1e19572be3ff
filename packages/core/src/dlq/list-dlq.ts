import type { Db } from '../db/client.js';
import { listExecutions, type ExecutionWithAttempts } from '../executions/list-executions.js';
import type { Page } from '../lists/paging.js';
import type { Deps } from '../runtime/deps.js';
import { deadLettered } from './dead-lettered.js';

/**
 * GET /v1/dlq: dead-lettered executions with exactly the query parameters, validation, default
 * sort and paging of GET /v1/executions (D3, D6), because it is the same listing with one more
 * condition.
 */
export async function listDlq(deps: Pick<Deps, 'db'>, workspaceId: string, query: unknown): Promise<Page<ExecutionWithAttempts>> {
  return listExecutions({ db: deadLetteredView(deps.db) }, workspaceId, query);
}

const views = new WeakMap<Db, Db>();

/**
 * listExecutions takes no extra condition, so it is handed a client on which every execution
 * read it makes (the page and its total) also requires dead_lettered_at. Once listExecutions
 * accepts a `where` scope this view goes and listDlq passes `deadLettered` directly.
 */
function deadLetteredView(db: Db): Db {
  let view = views.get(db);
  if (!view) {
    const scoped = <A extends { where?: object }>(args: A): A => ({ ...args, where: { AND: [args.where ?? {}, deadLettered] } });
    view = db.$extends({
      query: {
        execution: {
          findMany: ({ args, query }) => query(scoped(args)),
          count: ({ args, query }) => query(scoped(args)),
        },
      },
    }) as unknown as Db;
    views.set(db, view);
  }
  return view;
}
