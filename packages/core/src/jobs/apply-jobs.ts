import type { ApplyDocument, ApplyResult } from '@cronsvc/contracts';
import type pg from 'pg';
import { inTransaction, type JobRow } from '../db/client.js';
import { columnArrays, unnestFrom } from '../db/columns.js';
import { isStoredBytesError, storedBytesExceeded, wouldExceedStoredBytes } from '../db/stored-bytes.js';
import type { Deps } from '../deps/deps.js';
import { AppError, type ErrorDetail } from '../errors/app-error.js';
import { enqueueCommitted, fireKey } from '../executions/create-executions.js';
import type { ExecutionEnqueue } from '../queues/queues.js';
import { newBadgeToken, newId } from '../ids/ids.js';
import type { Actor } from '../access/actor.js';
import { fieldsOf, writeAuditSql } from '../access/audit.js';
import { currentRequestId } from '../logging/log-context.js';
import { validate } from '../validation/validate.js';
import { applyBody, applyResult, givenJobs, planApply, replans, secretProblems, type PlannedChange } from './apply-plan.js';
import { secretSizes } from './check-job-references.js';
import { INPUT_COLUMNS, INSERT_JOBS_SQL, JOB_COLUMNS, jobFromRecord, type JobRecord, type NewJob } from './insert-job.js';
import { jobFields, jobStoredBytes } from './job-data.js';
import { jobDocument } from './job-document.js';
import { keyTaken } from './job-keys.js';
import { plannedNextRun } from './job-plan.js';
import { isJobQuotaError, jobQuotaExceeded } from './job-quota.js';
import { tagSchema } from './job-tags.js';
import { webhookColumns } from './webhook-credentials.js';

/**
 * POST /v1/jobs/apply (docs/JOBS-AS-CODE.md): a whole document of keyed jobs made true in one
 * transaction, set-based whatever its size: one read of the stored keyed jobs, then one DELETE,
 * one UPDATE and one INSERT for all the jobs they concern. Applies to one workspace take turns
 * (an advisory lock), so two never plan against the same stored jobs.
 */
export async function applyJobs(deps: Deps, workspaceId: string, body: unknown, actor?: Actor): Promise<ApplyResult> {
  const input = applyBody(body);
  const { jobs, problems } = givenJobs(deps.config, input);
  const secrets = await secretSizes(deps.db, workspaceId, jobs.flatMap((j) => j.references.secrets.map((s) => s.name)));
  problems.push(...secretProblems(jobs, secrets));
  if (problems.length > 0) throw AppError.validation(problems.sort(byJob));
  const now = deps.clock.now();
  const fires: ExecutionEnqueue[] = [];
  const result = await inTransaction(deps.pool, async (client) => {
    if (!input.dry_run) await client.query({ text: `SELECT pg_advisory_xact_lock(hashtext('jobs-apply:' || $1))`, values: [workspaceId] });
    const stored = await client.query<JobRecord>({
      text: `SELECT * FROM jobs WHERE workspace_id = $1 AND key IS NOT NULL${input.dry_run ? '' : ' FOR UPDATE'}`,
      values: [workspaceId],
    });
    const plan = planApply({ body: input, jobs, stored: stored.rows.map(jobFromRecord), now, encryptionKey: deps.config.secretsEncryptionKey });
    if (input.dry_run) return applyResult(plan);
    try {
      await deleteJobs(client, plan.deleted.map((j) => j.id));
      const updates = plan.changes.filter((c) => c.current && c.fields.length > 0);
      fires.push(...(await updateJobs(deps, client, updates, now)));
      fires.push(...(await insertJobs(deps, client, workspaceId, plan.changes.filter((c) => !c.current), now, actor)));
      await writeAuditSql(client, actor, [
        ...plan.deleted.map((j) => ({ action: 'job.deleted', targetType: 'job', targetId: j.id })),
        ...updates.map((c) => ({ action: 'job.updated', targetType: 'job', targetId: c.current!.id, changedFields: c.fields })),
      ]);
    } catch (error) {
      if (isJobQuotaError(error)) throw jobQuotaExceeded(deps.config.maxJobsPerWorkspace);
      if (isStoredBytesError(error)) throw storedBytesExceeded(deps.config.maxStoredBytesPerWorkspace);
      throw error;
    }
    return applyResult(plan);
  });
  if (fires.length > 0) await enqueueCommitted(deps, fires);
  return result;
}

const jobIndex = (path: string) => Number(/^jobs\[(\d+)\]/.exec(path)?.[1] ?? -1);
/** Problems in document order, so a job's problems read together. */
const byJob = (a: ErrorDetail, b: ErrorDetail) => jobIndex(a.path) - jobIndex(b.path);

async function deleteJobs(client: pg.PoolClient, ids: string[]): Promise<void> {
  if (ids.length > 0) await client.query({ text: 'DELETE FROM jobs WHERE id = ANY($1::text[])', values: [ids] });
}

// Every column an apply may change: all but the job's identity, its creation and its Idempotency-Key.
const FIXED = new Set(['id', 'workspace_id', 'created_at', 'idempotency_key']);
const UPDATE_SQL = `
  UPDATE jobs AS j SET ${JOB_COLUMNS.filter((c) => !FIXED.has(c.name)).map((c) => `${c.name} = t.${c.name}`).join(', ')}
    FROM ${unnestFrom(JOB_COLUMNS, 't')}
   WHERE j.id = t.id AND j.workspace_id = t.workspace_id`;

/** The jobs whose definition changes, in one statement; their fires queued ahead are dropped when they plan again, as PATCH does. */
async function updateJobs(deps: Deps, client: pg.PoolClient, changes: PlannedChange[], now: Date): Promise<ExecutionEnqueue[]> {
  if (changes.length === 0) return [];
  const rows: JobRow[] = changes.map((change) => {
    const current = change.current as JobRow;
    const { input } = change.given;
    const fields = jobFields(input);
    const replan = replans(change);
    const anchor = replan ? now : current.scheduleAnchor;
    return {
      ...current,
      ...fields,
      ...webhookColumns(deps.config.secretsEncryptionKey, current, input, current, change.given.secretGiven),
      scheduleAnchor: anchor,
      nextRunAt: replan ? plannedNextRun({ ...fields, scheduleAnchor: anchor }, now) : current.nextRunAt,
      storedBytes: jobStoredBytes({ ...fields, idempotencyKey: current.idempotencyKey }),
      updatedAt: now,
    };
  });
  const replanned = changes.filter(replans).map((c) => (c.current as JobRow).id);
  if (replanned.length > 0) {
    await client.query({
      text: `DELETE FROM executions WHERE job_id = ANY($1::text[]) AND source = 'schedule' AND status = 'queued' AND attempt_count = 0 AND next_attempt_at > $2`,
      values: [replanned, now.toISOString()],
    });
  }
  await client.query({ text: UPDATE_SQL, values: columnArrays(JOB_COLUMNS, rows) });
  // A one_time job made active from a draft fires its single execution now, as PATCH does.
  const activated = rows.filter((row, i) => row.kind === 'one_time' && row.state === 'active' && changes[i].current?.state !== 'active');
  if (activated.length === 0) return [];
  const ids = activated.map(() => newId('exe'));
  await client.query({
    text: `INSERT INTO executions (id, workspace_id, job_id, job_name, status, source, scheduled_for, fire_key, next_attempt_at, request_id, created_at, updated_at)
           SELECT t.id, t.workspace_id, t.job_id, t.job_name, 'queued', 'schedule', $5, t.fire_key, $5, $6, $5, $5
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $7::text[]) AS t(id, job_id, job_name, fire_key, workspace_id)`,
    values: [ids, activated.map((r) => r.id), activated.map((r) => r.name), activated.map((r) => fireKey(r.id, now)), now.toISOString(), currentRequestId() ?? null, activated.map((r) => r.workspaceId)],
  });
  return activated.map((row, i) => ({ executionId: ids[i], attempt: 1, runAt: now, workspaceId: row.workspaceId }));
}

/** The new jobs in one statement (the one POST /v1/jobs uses), with the first execution of those that fire as they are created. */
async function insertJobs(deps: Deps, client: pg.PoolClient, workspaceId: string, changes: PlannedChange[], now: Date, actor: Actor | undefined): Promise<ExecutionEnqueue[]> {
  if (changes.length === 0) return [];
  const requestId = currentRequestId() ?? null;
  const news: NewJob[] = changes.map(({ given: { input, secretGiven } }) => {
    const id = newId('job');
    const fields = jobFields(input);
    const job: JobRow = {
      ...fields,
      id,
      workspaceId,
      createdAt: now,
      updatedAt: now,
      scheduleAnchor: now,
      nextRunAt: plannedNextRun({ ...fields, scheduleAnchor: now }, now),
      idempotencyKey: null,
      badgeToken: newBadgeToken(),
      storedBytes: jobStoredBytes({ ...fields, idempotencyKey: null }),
      ...webhookColumns(deps.config.secretsEncryptionKey, { id, workspaceId }, input, null, secretGiven),
    };
    const fire = input.kind === 'one_time' && input.state === 'active' ? { executionId: newId('exe'), scheduledFor: now } : null;
    return { job, fire, requestId, actor: actor ?? null, changedFields: fieldsOf(input) };
  });
  const { rows } = await client.query<JobRecord>({ text: INSERT_JOBS_SQL, values: columnArrays(INPUT_COLUMNS, news) });
  if (rows.length < news.length) await throwWhyNotInserted(deps, client, workspaceId, news, new Set(rows.map((r) => r.id)));
  return news.flatMap(({ fire }) => (fire ? [{ executionId: fire.executionId, attempt: 1, runAt: fire.scheduledFor, workspaceId }] : []));
}

/** A new job the insert skipped: its key taken meanwhile by a create, or the workspace out of room for jobs or bytes. */
async function throwWhyNotInserted(deps: Deps, client: pg.PoolClient, workspaceId: string, news: NewJob[], inserted: Set<string>): Promise<never> {
  const missing = news.filter((n) => !inserted.has(n.job.id)).map((n) => n.job.key as string);
  const { rows } = await client.query<{ key: string }>({ text: 'SELECT key FROM jobs WHERE workspace_id = $1 AND key = ANY($2::text[]) LIMIT 1', values: [workspaceId, missing] });
  if (rows[0]) throw keyTaken(rows[0].key);
  const bytes = news.filter((n) => !inserted.has(n.job.id)).reduce((sum, n) => sum + n.job.storedBytes, 0);
  const maxBytes = deps.config.maxStoredBytesPerWorkspace;
  if (await wouldExceedStoredBytes(deps.pool, workspaceId, bytes, maxBytes)) throw storedBytesExceeded(maxBytes);
  throw jobQuotaExceeded(deps.config.maxJobsPerWorkspace);
}

const exportQuery = (tag: unknown) => (tag === undefined ? undefined : validate<string>(tagSchema, tag, { prefix: 'tag' }));

/** GET /v1/jobs/export: every keyed job of the workspace (with the tag, when given) as an apply document, sorted by key. */
export async function exportJobs(deps: Pick<Deps, 'db'>, workspaceId: string, query: { tag?: unknown }): Promise<ApplyDocument> {
  const tag = exportQuery(query.tag);
  const rows = await deps.db.job.findMany({
    where: { workspaceId, key: { not: null }, ...(tag ? { tags: { array_contains: [tag] } } : {}) },
    orderBy: { key: 'asc' },
  });
  return { jobs: rows.map(jobDocument) as unknown as ApplyDocument['jobs'] };
}
