import type { JobRow } from '../db/client.js';
import { AppError } from '../errors/app-error.js';
import { newBadgeToken, newId } from '../ids/ids.js';
import type { Deps } from '../deps/deps.js';
import { validate } from '../validation/validate.js';
import { enqueueCommitted } from '../executions/create-executions.js';
import { jobSchema, type JobInput } from './job-schema.js';
import { plannedNextRun } from './job-plan.js';
import { jobFields, jobStoredBytes } from './job-data.js';
import { insertJob } from './insert-job.js';
import { checkJobTargets } from './check-job-targets.js';
import { checkJobReferences } from './check-job-references.js';
import { checkStepTimeouts } from './check-step-timeouts.js';
import { isJobQuotaError, jobQuotaExceeded } from './job-quota.js';
import { isStoredBytesError, storedBytesExceeded, wouldExceedStoredBytes } from '../db/stored-bytes.js';
import { webhookColumns } from './webhook-credentials.js';
import type { Actor } from '../access/actor.js';
import { fieldsOf } from '../access/audit.js';
import { checkKeyFree } from './job-keys.js';

export interface CreateJobResult {
  job: JobRow;
  /** False when an Idempotency-Key matched an existing job, which is returned instead. */
  created: boolean;
}

const jobWithKey = (deps: Deps, workspaceId: string, idempotencyKey: string) => deps.db.job.findFirst({ where: { workspaceId, idempotencyKey } });

export async function createJob(deps: Deps, workspaceId: string, body: unknown, idempotencyKey?: string, actor?: Actor): Promise<CreateJobResult> {
  // A used key answers with its job whatever this body says, valid or not (docs/API.md, "Conventions").
  if (idempotencyKey !== undefined) {
    const existing = await jobWithKey(deps, workspaceId, idempotencyKey);
    if (existing) return { job: existing, created: false };
  }
  const now = deps.clock.now();
  const input = validate<JobInput>(jobSchema, body, { context: { now } });
  if (input.state === 'completed') throw AppError.validation([{ path: 'state', message: 'a new job cannot be completed' }]);
  checkStepTimeouts(input);
  checkJobTargets(deps.config, input);
  await checkJobReferences(deps.db, workspaceId, input);
  if (input.key) await checkKeyFree(deps.db, workspaceId, input.key);

  const base = { kind: input.kind, state: input.state, schedule: input.schedule ?? null, scheduleAnchor: now };
  const id = newId('job');
  const fields = jobFields(input);
  const row: JobRow = {
    ...fields,
    id,
    workspaceId,
    createdAt: now,
    updatedAt: now,
    scheduleAnchor: now,
    nextRunAt: plannedNextRun(base, now),
    idempotencyKey: idempotencyKey ?? null,
    badgeToken: newBadgeToken(),
    storedBytes: jobStoredBytes({ ...fields, idempotencyKey: idempotencyKey ?? null }),
    ...webhookColumns(deps.config.secretsEncryptionKey, { id, workspaceId }, input, null, input.webhook_secret !== undefined),
  };
  // A one_time job commits its first execution with it, in the same statement.
  const fire = input.kind === 'one_time' && input.state === 'active' ? { executionId: newId('exe'), scheduledFor: now } : null;
  let stored: JobRow | null;
  try {
    stored = await insertJob(deps.pool, row, fire, actor && { actor, changedFields: fieldsOf(body) });
  } catch (error) {
    if (isJobQuotaError(error)) throw jobQuotaExceeded(deps.config.maxJobsPerWorkspace);
    if (isStoredBytesError(error)) throw storedBytesExceeded(deps.config.maxStoredBytesPerWorkspace);
    throw error;
  }
  if (stored) {
    if (fire) await enqueueCommitted(deps, [{ executionId: fire.executionId, attempt: 1, runAt: fire.scheduledFor, workspaceId: stored.workspaceId }]);
    return { job: stored, created: true };
  }
  // Nothing stored: another request with the same Idempotency-Key or key got there first, or the
  // workspace is at its quota of jobs or of stored bytes (the insert skips such a job, see
  // job-quota.ts and db/stored-bytes.ts).
  const winner = idempotencyKey === undefined ? null : await jobWithKey(deps, workspaceId, idempotencyKey);
  if (winner) return { job: winner, created: false };
  if (input.key) await checkKeyFree(deps.db, workspaceId, input.key);
  const { maxStoredBytesPerWorkspace: maxBytes } = deps.config;
  throw (await wouldExceedStoredBytes(deps.pool, workspaceId, row.storedBytes, maxBytes)) ? storedBytesExceeded(maxBytes) : jobQuotaExceeded(deps.config.maxJobsPerWorkspace);
}
