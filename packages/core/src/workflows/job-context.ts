import type { JobContext, JobContextPatch } from '@cronsvc/contracts';
import Joi from 'joi';
import type pg from 'pg';
import type { Actor } from '../access/actor.js';
import { fieldsOf, writeAuditSql } from '../access/audit.js';
import { inTransaction } from '../db/client.js';
import { AppError, type ErrorDetail } from '../errors/app-error.js';
import { findJob } from '../jobs/job-store.js';
import type { Deps } from '../deps/deps.js';
import { validate } from '../validation/validate.js';
import { CONTEXT_KEY } from '../templates/step-template.js';
import { jsonText } from '../db/columns.js';

/**
 * A job's context store (docs/WORKFLOWS.md, "Job context"): string keys to string values, kept across runs,
 * read and changed through GET/PATCH /v1/jobs/:id/context and by steps' extract_to_context.
 * One row per job, locked by whoever changes it, so the limits hold under concurrent writers.
 */

export const CONTEXT_LIMITS = { keys: 100, valueBytes: 8 * 1024, totalBytes: 64 * 1024 };

export type ContextMap = JobContext;
export type ContextChanges = JobContextPatch;

export const patchSchema = Joi.object()
  .pattern(
    CONTEXT_KEY,
    Joi.string()
      .allow('', null)
      .max(CONTEXT_LIMITS.valueBytes, 'utf8')
      .messages({ 'string.base': 'must be a string, or null to delete the key', 'string.max': `must be at most ${CONTEXT_LIMITS.valueBytes} bytes of UTF-8` }),
  )
  .messages({ 'object.unknown': 'is not a valid context key (1 to 128 letters, digits, _ or -)', 'object.base': 'must be an object of keys to strings or null' });

/** The map after `changes`, or what makes it too big. */
export function applyChanges(current: ContextMap, changes: ContextChanges): { entries: ContextMap } | { problems: ErrorDetail[] } {
  const entries = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete entries[key];
    else entries[key] = value;
  }
  const problems: ErrorDetail[] = [];
  for (const [key, value] of Object.entries(entries)) {
    if (Buffer.byteLength(value) > CONTEXT_LIMITS.valueBytes) problems.push({ path: key, message: `must be at most ${CONTEXT_LIMITS.valueBytes} bytes of UTF-8` });
  }
  const keys = Object.keys(entries).length;
  if (keys > CONTEXT_LIMITS.keys) problems.push({ path: '(body)', message: `the context would hold ${keys} keys; at most ${CONTEXT_LIMITS.keys} are allowed` });
  const total = Object.entries(entries).reduce((sum, [k, v]) => sum + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
  if (total > CONTEXT_LIMITS.totalBytes) problems.push({ path: '(body)', message: `the context would hold ${total} bytes of keys and values; at most ${CONTEXT_LIMITS.totalBytes} are allowed` });
  return problems.length > 0 ? { problems } : { entries };
}

/** Locks the job's context row (creating it empty) and returns what it holds. */
async function lockContext(client: pg.PoolClient, jobId: string, now: Date): Promise<ContextMap> {
  await client.query(`INSERT INTO job_contexts (job_id, entries, updated_at) VALUES ($1, '{}', $2) ON CONFLICT (job_id) DO NOTHING`, [jobId, now]);
  const { rows } = await client.query<{ entries: ContextMap }>('SELECT entries FROM job_contexts WHERE job_id = $1 FOR UPDATE', [jobId]);
  return rows[0].entries;
}

/**
 * Applies changes inside the caller's transaction (a PATCH, or a step recording its
 * extract_to_context values); nothing is written when the result would break a limit.
 */
export async function changeContextIn(client: pg.PoolClient, jobId: string, changes: ContextChanges, now: Date): Promise<{ entries: ContextMap } | { problems: ErrorDetail[] }> {
  const result = applyChanges(await lockContext(client, jobId, now), changes);
  if ('entries' in result) await client.query('UPDATE job_contexts SET entries = $2, updated_at = $3 WHERE job_id = $1', [jobId, jsonText(result.entries), now]);
  return result;
}

export async function getJobContext(deps: Pick<Deps, 'db'>, workspaceId: string, jobId: string): Promise<ContextMap> {
  const job = await findJob(deps.db, workspaceId, jobId);
  const row = await deps.db.jobContext.findUnique({ where: { jobId: job.id }, select: { entries: true } });
  return (row?.entries as ContextMap | undefined) ?? {};
}

/**
 * PATCH /v1/jobs/:id/context: keys set to a string are stored, keys set to null deleted; answers the map after the change.
 * Its `job.context_updated` event names the keys given, never their values.
 */
export async function patchJobContext(deps: Pick<Deps, 'db' | 'pool' | 'clock'>, workspaceId: string, jobId: string, body: unknown, actor?: Actor): Promise<ContextMap> {
  const changes = validate<ContextChanges>(patchSchema, body);
  const job = await findJob(deps.db, workspaceId, jobId);
  const result = await inTransaction(deps.pool, async (client) => {
    const changed = await changeContextIn(client, job.id, changes, deps.clock.now());
    if ('entries' in changed) await writeAuditSql(client, actor, [{ action: 'job.context_updated', targetType: 'job', targetId: job.id, changedFields: fieldsOf(body) }]);
    return changed;
  });
  if ('problems' in result) throw AppError.validation(result.problems);
  return result.entries;
}
