import { IDEMPOTENCY_KEY_HEADER, type ApplyDocument, type ApplyResult, type ImportResult } from '@cronsvc/contracts';
import { Router } from 'express';
import {
  AppError, applyJobs, createJob, exportJobs, deleteJob, findJob, getJobContext, importCrontab, jobFire, jobStats, rotateJobBadge, listExecutions, listJobFires, listJobs, patchJobContext, pauseJob,
  resumeJob, runNow, serializeExecution, serializeExecutionSummary, serializeJob, serializeJobSummary, updateJob, type JobRow,
} from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { actorOf } from '../middleware/auth.js';
import { rulesRouter } from './rules.router.js';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export function jobsRouter(deps: ApiDeps): Router {
  const router = Router();
  const ws = (res: { locals: Record<string, unknown> }) => res.locals.workspaceId as string;
  const show = (job: JobRow) => serializeJob(job, deps.config);

  router.post('/', async (req, res) => {
    const key = req.get(IDEMPOTENCY_KEY_HEADER);
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
      throw AppError.validation([{ path: IDEMPOTENCY_KEY_HEADER, message: 'must be 1 to 255 printable ASCII characters' }]);
    }
    const { job, created } = await createJob(deps, ws(res), req.body, key, actorOf(res));
    res.status(created ? 201 : 200).json(show(job));
  });
  // Before the /:id routes, so "import" is never taken for a job id.
  router.post('/import', async (req, res) => {
    const { created, errors, notes } = await importCrontab(deps, ws(res), req.body, actorOf(res));
    // 201 even when no line was good: the answer's shape stays the same and `errors` says why.
    res.status(201).json({ created: created.map(show), errors, notes } satisfies ImportResult);
  });
  // Jobs as code (docs/JOBS-AS-CODE.md); before the /:id routes like import.
  router.post('/apply', async (req, res) => {
    res.json((await applyJobs(deps, ws(res), req.body, actorOf(res))) satisfies ApplyResult);
  });
  router.get('/export', async (req, res) => {
    res.json((await exportJobs(deps, ws(res), req.query)) satisfies ApplyDocument);
  });
  router.get('/', async (req, res) => {
    const page = await listJobs(deps, ws(res), req.query);
    res.json({ ...page, data: page.data.map((job) => serializeJobSummary(job, deps.config)) });
  });
  router.get('/:id', async (req, res) => {
    res.json(show(await findJob(deps.db, ws(res), req.params.id)));
  });
  router.patch('/:id', async (req, res) => {
    res.json(show(await updateJob(deps, ws(res), req.params.id, req.body, actorOf(res))));
  });
  router.delete('/:id', async (req, res) => {
    await deleteJob(deps, ws(res), req.params.id, actorOf(res));
    res.status(204).end();
  });
  router.post('/:id/pause', async (req, res) => {
    res.json(show(await pauseJob(deps, ws(res), req.params.id, actorOf(res))));
  });
  router.post('/:id/resume', async (req, res) => {
    res.json(show(await resumeJob(deps, ws(res), req.params.id, actorOf(res))));
  });
  router.post('/:id/run-now', async (req, res) => {
    res.status(202).json(serializeExecution(await runNow(deps, ws(res), req.params.id, actorOf(res))));
  });
  router.get('/:id/context', async (req, res) => {
    res.json(await getJobContext(deps, ws(res), req.params.id));
  });
  router.patch('/:id/context', async (req, res) => {
    res.json(await patchJobContext(deps, ws(res), req.params.id, req.body, actorOf(res)));
  });
  router.get('/:id/executions', async (req, res) => {
    const job = await findJob(deps.db, ws(res), req.params.id);
    const page = await listExecutions(deps, ws(res), req.query, job.id);
    res.json({ ...page, data: page.data.map(serializeExecutionSummary) });
  });
  router.get('/:id/fires', async (req, res) => {
    const job = await findJob(deps.db, ws(res), req.params.id);
    const page = await listJobFires(deps, ws(res), job.id, req.query);
    res.json({ ...page, data: page.data.map(jobFire) });
  });
  router.post('/:id/badge/rotate', async (req, res) => {
    res.json(await rotateJobBadge(deps, ws(res), req.params.id, actorOf(res)));
  });
  router.get('/:id/stats', async (req, res) => {
    const job = await findJob(deps.db, ws(res), req.params.id);
    res.json(await jobStats(deps, job.id, req.query));
  });
  router.use('/:id/notification-rules', rulesRouter(deps, 'job'));
  return router;
}
