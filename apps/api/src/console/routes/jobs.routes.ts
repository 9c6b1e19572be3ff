import { Router, type Request, type Response } from 'express';
import { STATS_WINDOWS } from '@cronsvc/contracts';
import {
  AppError, countTagged, createJob, listTags, createRule, deleteJob, deleteRule, findJob, jobFire, jobStats, listChannels, listExecutions, listJobFires, listJobs, listRules, missedCounts,
  pauseJob, recentOutcomes, resumeJob, runNow, serializeChannel, serializeExecutionSummary, serializeJob, serializeJobSummary, serializeRule, upcomingFires,
  updateJob, type JobRow,
} from '@cronsvc/core';
import { actorOf } from '../../middleware/auth.js';
import { queryText, redirectDone, sendPage, viewContext, workspaceOf, type ConsoleDeps } from '../context.js';
import { postedValues, type FieldErrors } from '../form-parsing.js';
import { fieldErrors, jobBody, jobValues, newJobValues } from '../job-form.js';
import { paths, safeReturnPath } from '../paths.js';
import { afterStepAction, editorOf, STEP_ACTION } from '../step-form.js';
import { jobsView, type JobsFilter } from '../views/jobs.view.js';
import { editJobView, jobView, newJobView, type JobForm } from '../views/job.view.js';
import { confirmView } from '../views/problem.view.js';

const PAGE_SIZE = 50;
const RECENT = 20;
const NEXT_FIRES = 5;
const RECENT_FIRES = 30;
const DAY_MS = 86_400_000;

/** The API's answer to a form, by field: validation details where they point, otherwise the message. */
function formErrors(error: AppError, kind: string, jsonOnly: boolean): FieldErrors {
  return error.details ? fieldErrors(error.details, kind, jsonOnly) : { '': [error.message] };
}

/** Jobs, New job and a job's page, with the job's actions and notification rules. */
/** An on_failure rule's options from the form: numbers as numbers, an empty reminder as null (once per streak); none for other events. */
function ruleOptionsOf(form: Record<string, unknown> | undefined): Record<string, unknown> {
  if (form?.event !== 'on_failure') return {};
  const number = (v: unknown) => (typeof v === 'string' && /^\d{1,6}$/.test(v.trim()) ? Number(v.trim()) : v);
  const after = form.after_consecutive_failures;
  const realert = form.realert_after_minutes;
  return {
    ...(after === undefined || after === '' ? {} : { after_consecutive_failures: number(after) }),
    ...(realert === undefined ? {} : { realert_after_minutes: typeof realert === 'string' && realert.trim() === '' ? null : number(realert) }),
  };
}

export function jobsRoutes(deps: ConsoleDeps): Router {
  const router = Router();
  const show = (row: JobRow) => serializeJob(row, deps.config);

  router.get('/', async (req, res) => {
    const filter: JobsFilter = { name: queryText(req.query.name), state: queryText(req.query.state), kind: queryText(req.query.kind), tag: queryText(req.query.tag) };
    const offset = queryText(req.query.offset) ?? '0';
    const ws = workspaceOf(res);
    try {
      const list = await listJobs(deps, ws, { ...filter, limit: String(PAGE_SIZE), offset });
      const ids = list.data.map((j) => j.id);
      const [outcomes, missed, tags, tagged] = await Promise.all([
        recentOutcomes(deps, ws, ids, RECENT),
        missedCounts(deps, ids, new Date(deps.clock.now().getTime() - DAY_MS)),
        listTags(deps, ws),
        filter.tag ? countTagged(deps, ws, filter.tag) : null,
      ]);
      const data = list.data.map((row) => serializeJobSummary(row, deps.config));
      sendPage(res, 200, jobsView(viewContext(deps, req, res), { ...list, data }, { outcomes, missed }, filter, { tags, tagged }));
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'validation_failed') throw error;
      const empty = { data: [], total: 0, limit: PAGE_SIZE, offset: 0 };
      sendPage(res, 400, jobsView(viewContext(deps, req, res), empty, { outcomes: new Map(), missed: new Map() }, filter, { tags: [], tagged: null }, error.message));
    }
  });

  router.get('/new', (req, res) => {
    sendPage(res, 200, newJobView(viewContext(deps, req, res), { values: newJobValues(), errors: {}, steps: editorOf([]) }));
  });

  /**
   * A posted job form: a list action re-renders the form with the step list changed (nothing is
   * saved); otherwise `save` is called with the API's body, and a refusal shows the form again
   * with the API's messages by their fields.
   */
  async function postedForm(req: Request, mode: 'create' | 'edit', show: (status: number, form: JobForm) => Promise<void> | void, save: (body: Record<string, unknown>) => Promise<void>): Promise<void> {
    const values = postedValues(req.body);
    const { body, errors, steps } = jobBody(values, mode);
    const action = values[STEP_ACTION];
    if (action !== undefined) {
      const after = afterStepAction(steps, action);
      return show(200, { values, errors: after.errors, steps: after.editor });
    }
    if (Object.keys(errors).length > 0) return show(400, { values, errors, steps: steps.editor });
    try {
      await save(body);
    } catch (error) {
      if (!(error instanceof AppError) || error.code === 'not_found') throw error;
      await show(error.status, { values, errors: formErrors(error, values.kind ?? '', steps.jsonOnly), steps: steps.editor });
    }
  }

  router.post('/', (req, res) =>
    postedForm(req, 'create', (status, form) => sendPage(res, status, newJobView(viewContext(deps, req, res), form)), async (body) => {
      const { job } = await createJob(deps, workspaceOf(res), body, undefined, actorOf(res));
      redirectDone(res, paths.job(job.id), 'job-created');
    }),
  );

  router.get('/:id', async (req, res) => {
    const ws = workspaceOf(res);
    const row = await findJob(deps.db, ws, req.params.id);
    const job = show(row);
    const scheduled = job.overlap_policy !== undefined;
    const window = STATS_WINDOWS.find((w) => w === req.query.window) ?? '24h';
    const [executions, rules, channels, ledger, stats, outcomes] = await Promise.all([
      listExecutions(deps, ws, { limit: String(RECENT) }, row.id),
      listRules(deps, ws, { kind: 'job', id: row.id }, { limit: '100' }),
      listChannels(deps, ws, { limit: '100' }),
      scheduled ? listJobFires(deps, ws, row.id, { limit: String(RECENT_FIRES) }) : null,
      jobStats(deps, row.id, { window }),
      recentOutcomes(deps, ws, [row.id], RECENT),
    ]);
    const view = {
      job,
      fires: upcomingFires(row, NEXT_FIRES),
      ledger: ledger ? ledger.data.map(jobFire) : null,
      executions: executions.data.map(serializeExecutionSummary),
      rules: rules.data.map((r) => serializeRule(r, deps.clock.now())),
      channels: channels.data.map((c) => serializeChannel(c, deps.config.secretsEncryptionKey)),
      stats,
      outcomes: outcomes.get(row.id) ?? [],
    };
    sendPage(res, 200, jobView(viewContext(deps, req, res), view));
  });

  /** The edit page, holding `form` (what was posted, after a refused save or a list action) or the job as it is. */
  async function editPage(req: Request, res: Response, status: number, form?: JobForm): Promise<void> {
    const job = show(await findJob(deps.db, workspaceOf(res), req.params.id as string));
    sendPage(res, status, editJobView(viewContext(deps, req, res), job, form ?? { values: jobValues(job), errors: {}, steps: editorOf(job.steps) }));
  }

  router.get('/:id/edit', (req, res) => editPage(req, res, 200));

  router.post('/:id', (req, res) =>
    postedForm(req, 'edit', (status, form) => editPage(req, res, status, form), async (body) => {
      await updateJob(deps, workspaceOf(res), req.params.id, body, actorOf(res));
      redirectDone(res, paths.job(req.params.id), 'job-saved');
    }),
  );

  router.post('/:id/run-now', async (req, res) => {
    const execution = await runNow(deps, workspaceOf(res), req.params.id, actorOf(res));
    redirectDone(res, paths.execution(execution.id), 'run-queued');
  });
  router.post('/:id/pause', async (req, res) => {
    const job = await pauseJob(deps, workspaceOf(res), req.params.id, actorOf(res));
    redirectDone(res, paths.job(job.id), 'job-paused');
  });
  router.post('/:id/resume', async (req, res) => {
    const job = await resumeJob(deps, workspaceOf(res), req.params.id, actorOf(res));
    redirectDone(res, paths.job(job.id), 'job-resumed');
  });
  router.post('/:id/delete', async (req, res) => {
    const ws = workspaceOf(res);
    if (req.body?.confirmed !== 'yes') {
      const job = await findJob(deps.db, ws, req.params.id);
      const question = `Delete the job "${job.name}" with its executions and rules?`;
      return sendPage(res, 200, confirmView(viewContext(deps, req, res), question, paths.jobAction(job.id, 'delete'), 'Delete', paths.job(job.id)));
    }
    await deleteJob(deps, ws, req.params.id, actorOf(res));
    redirectDone(res, paths.jobs, 'job-deleted');
  });

  router.post('/:id/rules', async (req, res) => {
    const body = { channel_id: req.body?.channel_id, event: req.body?.event, ...ruleOptionsOf(req.body) };
    await createRule(deps, workspaceOf(res), { kind: 'job', id: req.params.id }, body, actorOf(res));
    redirectDone(res, paths.job(req.params.id), 'rule-added');
  });
  router.post('/:id/rules/:ruleId/delete', async (req, res) => {
    await deleteRule(deps, workspaceOf(res), { kind: 'job', id: req.params.id }, req.params.ruleId, actorOf(res));
    redirectDone(res, safeReturnPath(req.body?.back) ?? paths.job(req.params.id), 'rule-removed');
  });
  return router;
}
