import { listExecutions, type ListedExecution } from '../executions/list-executions.js';
import type { Page } from '../lists/paging.js';
import type { Deps } from '../deps/deps.js';
import { deadLettered } from './dead-lettered.js';

/**
 * GET /v1/dlq: dead-lettered executions with exactly the query parameters, validation, default
 * sort and paging of GET /v1/executions (docs/API.md, docs/EXECUTIONS.md): the same listing with one more condition.
 */
export async function listDlq(deps: Pick<Deps, 'db'>, workspaceId: string, query: unknown): Promise<Page<ListedExecution>> {
  return listExecutions(deps, workspaceId, query, undefined, deadLettered);
}
