import { Router } from 'express';
import { dlqStats, listDlq, purgeDlq, removeFromDlq, replayBatch, replayExecution, serializeExecutionSummary } from '@cronsvc/core';
import { actorOf } from '../../middleware/auth.js';
import { queryText, redirectDone, sendPage, viewContext, workspaceOf, type ConsoleDeps } from '../context.js';
import { paths } from '../paths.js';
import { deadLettersView } from '../views/dead-letters.view.js';
import { confirmView } from '../views/problem.view.js';

const PAGE_SIZE = 50;

/** The dead-letter queue: replay or remove one, replay all of a job, purge. */
export function deadLettersRoutes(deps: ConsoleDeps): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    const ws = workspaceOf(res);
    const [list, stats] = await Promise.all([listDlq(deps, ws, { limit: String(PAGE_SIZE), offset: queryText(req.query.offset) ?? '0' }), dlqStats(deps, ws)]);
    sendPage(res, 200, deadLettersView(viewContext(deps, req, res), { ...list, data: list.data.map(serializeExecutionSummary) }, stats));
  });

  router.post('/replay-job', async (req, res) => {
    const { replayed } = await replayBatch(deps, workspaceOf(res), { job_id: req.body?.job_id }, actorOf(res));
    redirectDone(res, paths.deadLetters, 'dead-letters-replayed', { n: String(replayed.length) });
  });

  router.post('/purge', async (req, res) => {
    const jobId = queryText(req.body?.job_id);
    if (req.body?.confirmed !== 'yes') {
      const question = jobId ? 'Purge the dead letters of this job?' : 'Purge all dead letters?';
      return sendPage(res, 200, confirmView(viewContext(deps, req, res), question, paths.purgeDeadLetters, 'Purge', paths.deadLetters, jobId ? { job_id: jobId } : {}));
    }
    const purged = await purgeDlq(deps, workspaceOf(res), jobId ? { job_id: jobId } : {}, actorOf(res));
    redirectDone(res, paths.deadLetters, 'dead-letters-purged', { n: String(purged) });
  });

  router.post('/:id/replay', async (req, res) => {
    await replayExecution(deps, workspaceOf(res), req.params.id, 'dlq_replay', actorOf(res));
    redirectDone(res, paths.deadLetters, 'replayed');
  });

  router.post('/:id/remove', async (req, res) => {
    await removeFromDlq(deps, workspaceOf(res), req.params.id, actorOf(res));
    redirectDone(res, paths.deadLetters, 'dead-letter-removed');
  });
  return router;
}
