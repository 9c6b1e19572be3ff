import { Router } from 'express';
import { AppError, getExecution, hostCooldowns, hostOf, listExecutions, replayExecution, serializeExecution, serializeExecutionSummary } from '@cronsvc/core';
import { actorOf } from '../../middleware/auth.js';
import { queryText, redirectDone, sendPage, viewContext, workspaceOf, type ConsoleDeps } from '../context.js';
import { paths } from '../paths.js';
import { executionView } from '../views/execution.view.js';
import { executionsView, type ExecutionsFilter } from '../views/executions.view.js';

const PAGE_SIZE = 50;
// An execution that can still send a request: its hosts' cool-downs are shown.
const UNFINISHED = new Set(['queued', 'running', 'waiting']);

/** Executions with the API's filters, an execution's page, and Replay. */
export function executionsRoutes(deps: ConsoleDeps): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    const keys = ['status', 'job_name', 'from', 'to', 'sort', 'order'] as const;
    const filter: ExecutionsFilter = Object.fromEntries(keys.map((k) => [k, queryText(req.query[k])]).filter(([, v]) => v !== undefined));
    try {
      const list = await listExecutions(deps, workspaceOf(res), { ...filter, limit: String(PAGE_SIZE), offset: queryText(req.query.offset) ?? '0' });
      sendPage(res, 200, executionsView(viewContext(deps, req, res), { ...list, data: list.data.map(serializeExecutionSummary) }, filter));
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'validation_failed') throw error;
      sendPage(res, 400, executionsView(viewContext(deps, req, res), { data: [], total: 0, limit: PAGE_SIZE, offset: 0 }, filter, error.message));
    }
  });

  router.get('/:id', async (req, res) => {
    const ws = workspaceOf(res);
    const execution = serializeExecution(await getExecution(deps, ws, req.params.id));
    // The hosts this execution called: a cool-down of one of them holds back its next request.
    const attempts = [...(execution.attempts ?? []), ...(execution.step_executions ?? []).flatMap((s) => s.attempts)];
    const hosts = [...new Set(attempts.flatMap((a) => (a.request ? [hostOf(a.request.url)] : [])).filter((h): h is string => h !== null))];
    const cooldowns = UNFINISHED.has(execution.status) ? await hostCooldowns(deps, ws, hosts) : [];
    sendPage(res, 200, executionView(viewContext(deps, req, res), execution, cooldowns));
  });

  router.post('/:id/replay', async (req, res) => {
    const replay = await replayExecution(deps, workspaceOf(res), req.params.id, 'replay', actorOf(res));
    redirectDone(res, paths.execution(replay.id), 'replayed');
  });
  return router;
}
