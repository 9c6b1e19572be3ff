import { Router, type Request, type Response } from 'express';
import {
  AppError, createJob, createRule, deleteJob, deleteRule, findJob, listChannels, listExecutions, listJobs, listRules, pauseJob, recentOutcomes, resumeJob,
  runNow, serializeChannel, serializeExecutionSummary, serializeJob, serializeJobSummary, serializeRule, upcomingFires, updateJob, type JobRow,
} from '@cronsvc/core';
import { queryText, redirectDone, sendPage, viewContext, workspaceOf, type ConsoleDeps } from '../context.js';
import { fieldErrors, jobBody, jobValues, newJobValues, postedValues, type FieldErrors, type FormValues } from '../job-form.js';
import { paths, safeReturnPath } from '../paths.js';
import { jobsView, type JobsFilter } from '../views/jobs.view.js';
import { jobView, newJobView } from '../views/job.view.js';
import { confirmView } from '../views/problem.view.js';

const PAGE_SIZE = 50;
const RECENT = 20;
const NEXT_FIRES = 5;

/** The API's answer to a form, by field: validation details where they point, otherwise the message. */
function formErrors(error: AppError, kind: string): FieldErrors {
  return error.details ? fieldErrors(error.details, kind) : { '': [error.message] };
}

/** Jobs, New job and a job's page, with the job's actions and notification rules. */
export function jobsRoutes(deps: ConsoleDeps): Router {
  const router = Router();
  const show = (row: JobRow) => serializeJob(row, deps.config);

  router.get('/', async (req, res) => {
    const filter: JobsFilter = { name: queryText(req.query.name), state: queryText(req.query.state), kind: queryText(req.query.kind) };
    const offset = queryText(req.query.offset) ?? '0';
    const ws = workspaceOf(res);
    try {
      const list = await listJobs(deps, ws, { ...filter, limit: String(PAGE_SIZE), offset });
      const outcomes = await recentOutcomes(deps, ws, list.data.map((j) => j.id), RECENT);
      sendPage(res, 200, jobsView(viewContext(deps, req, res), { ...list, data: list.data.map((row) => serializeJobSummary(row, deps.config)) }, outcomes, filter));
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'validation_failed') throw error;
      const empty = { data: [], total: 0, limit: PAGE_SIZE, offset: 0 };
      sendPage(res, 400, jobsView(viewContext(deps, req, res), empty, new Map(), filter, error.message));
    }
  });

  router.get('/new', (req, res) => {
    sendPage(res, 200, newJobView(viewContext(deps, req, res), { values: newJobValues(), errors: {} }));
  });

  router.post('/', async (req, res) => {
    const values = postedValues(req.body);
    const { body, errors } = jobBody(values, 'create');
    const again = (status: number, problems: FieldErrors) => sendPage(res, status, newJobView(viewContext(deps, req, res), { values, errors: problems }));
    if (Object.keys(errors).length > 0) return again(400, errors);
    try {
      const { job } = await createJob(deps, workspaceOf(res), body);
      redirectDone(res, paths.job(job.id), 'job-created');
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      again(error.status, formErrors(error, values.kind ?? ''));
    }
  });

  /** The job's page, with the edit form holding `form` (what was posted, after a refused save). */
  async function jobPage(req: Request, res: Response, status: number, form?: { values: FormValues; errors: FieldErrors }): Promise<void> {
    const ws = workspaceOf(res);
    const row = await findJob(deps.db, ws, req.params.id as string);
    const job = show(row);
    const [executions, rules, channels] = await Promise.all([
      listExecutions(deps, ws, { limit: String(RECENT) }, row.id),
      listRules(deps, ws, { kind: 'job', id: row.id }, { limit: '100' }),
      listChannels(deps, ws, { limit: '100' }),
    ]);
    const view = {
      job,
      fires: upcomingFires(row, NEXT_FIRES),
      executions: executions.data.map(serializeExecutionSummary),
      rules: rules.data.map(serializeRule),
      channels: channels.data.map((c) => serializeChannel(c, deps.config.secretsEncryptionKey)),
      form: form ?? { values: jobValues(job), errors: {} },
    };
    sendPage(res, status, jobView(viewContext(deps, req, res), view));
  }

  router.get('/:id', (req, res) => jobPage(req, res, 200));

  router.post('/:id', async (req, res) => {
    const values = postedValues(req.body);
    const { body, errors } = jobBody(values, 'edit');
    if (Object.keys(errors).length > 0) return jobPage(req, res, 400, { values, errors });
    try {
      await updateJob(deps, workspaceOf(res), req.params.id, body);
      redirectDone(res, paths.job(req.params.id), 'job-saved');
    } catch (error) {
      if (!(error instanceof AppError) || error.code === 'not_found') throw error;
      await jobPage(req, res, error.status, { values, errors: formErrors(error, values.kind ?? '') });
    }
  });

  router.post('/:id/run-now', async (req, res) => {
    const execution = await runNow(deps, workspaceOf(res), req.params.id);
    redirectDone(res, paths.execution(execution.id), 'run-queued');
  });
  router.post('/:id/pause', async (req, res) => {
    const job = await pauseJob(deps, workspaceOf(res), req.params.id);
    redirectDone(res, paths.job(job.id), 'job-paused');
  });
  router.post('/:id/resume', async (req, res) => {
    const job = await resumeJob(deps, workspaceOf(res), req.params.id);
    redirectDone(res, paths.job(job.id), 'job-resumed');
  });
  router.post('/:id/delete', async (req, res) => {
    const ws = workspaceOf(res);
    if (req.body?.confirmed !== 'yes') {
      const job = await findJob(deps.db, ws, req.params.id);
      const question = `Delete the job "${job.name}" with its executions and rules?`;
      return sendPage(res, 200, confirmView(viewContext(deps, req, res), question, paths.jobAction(job.id, 'delete'), 'Delete', paths.job(job.id)));
    }
    await deleteJob(deps, ws, req.params.id);
    redirectDone(res, paths.jobs, 'job-deleted');
  });

  router.post('/:id/rules', async (req, res) => {
    await createRule(deps, workspaceOf(res), { kind: 'job', id: req.params.id }, { channel_id: req.body?.channel_id, event: req.body?.event });
    redirectDone(res, paths.job(req.params.id), 'rule-added');
  });
  router.post('/:id/rules/:ruleId/delete', async (req, res) => {
    await deleteRule(deps, workspaceOf(res), { kind: 'job', id: req.params.id }, req.params.ruleId);
    redirectDone(res, safeReturnPath(req.body?.back) ?? paths.job(req.params.id), 'rule-removed');
  });
  return router;
}
