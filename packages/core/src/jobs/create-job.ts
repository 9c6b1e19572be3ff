import type { JobRow } from '../db/client.js';
import { AppError } from '../errors/app-error.js';
import { newId } from '../ids/ids.js';
import type { Deps } from '../runtime/deps.js';
import { validate } from '../validation/validate.js';
import { enqueueCommitted, executionRow, firstAttempt } from '../executions/create-executions.js';
import { jobSchema, type JobInput } from './job-schema.js';
import { plannedNextRun } from './job-plan.js';
import { jobFields } from './job-data.js';
import { insertJob, insertJobIn } from './insert-job.js';
import { checkJobTargets } from './check-job-targets.js';
import { checkJobReferences } from './check-job-references.js';
import { webhookColumns } from '../workflows/webhook-credentials.js';

export interface CreateJobResult {
  job: JobRow;
  /** False when an Idempotency-Key matched an existing job, which is returned instead. */
  created: boolean;
}

/** A one_time job and its first execution commit together; the execution is queued after the commit. */
async function insertFiringJob(deps: Deps, row: JobRow): Promise<JobRow | null> {
  const inserted = await deps.db.$transaction(async (tx) => {
    const job = await insertJobIn(tx, row);
    if (!job) return null;
    const execution = await tx.execution.create({
      data: executionRow({ workspaceId: job.workspaceId, jobId: job.id, jobName: job.name, source: 'schedule', scheduledFor: job.createdAt }),
    });
    return { job, execution };
  });
  if (!inserted) return null;
  await enqueueCommitted(deps, [firstAttempt(inserted.execution)]);
  return inserted.job;
}

const jobWithKey = (deps: Deps, workspaceId: string, idempotencyKey: string) => deps.db.job.findFirst({ where: { workspaceId, idempotencyKey } });

export async function createJob(deps: Deps, workspaceId: string, body: unknown, idempotencyKey?: string): Promise<CreateJobResult> {
  // A used key answers with its job whatever this body says, valid or not (D3).
  if (idempotencyKey !== undefined) {
    const existing = await jobWithKey(deps, workspaceId, idempotencyKey);
    if (existing) return { job: existing, created: false };
  }
  const now = deps.clock.now();
  const input = validate<JobInput>(jobSchema, body, { context: { now } });
  if (input.state === 'completed') throw AppError.validation([{ path: 'state', message: 'a new job cannot be completed' }]);
  checkJobTargets(deps.config, input);
  await checkJobReferences(deps.db, workspaceId, input);

  const base = { kind: input.kind, state: input.state, schedule: input.schedule ?? null, scheduleAnchor: now };
  const row: JobRow = {
    ...jobFields(input),
    id: newId('job'),
    workspaceId,
    createdAt: now,
    updatedAt: now,
    scheduleAnchor: now,
    nextRunAt: plannedNextRun(base, now),
    idempotencyKey: idempotencyKey ?? null,
    ...webhookColumns(deps.config.secretsEncryptionKey, input, null, input.webhook_secret !== undefined),
  };
  // A one_time job commits its first execution with it; any other job is a single statement.
  const firesNow = input.kind === 'one_time' && input.state === 'active';
  const stored = firesNow ? await insertFiringJob(deps, row) : await insertJob(deps.pool, row);
  if (stored) return { job: stored, created: true };
  // Nothing stored: another request with the same Idempotency-Key got there first.
  const winner = idempotencyKey === undefined ? null : await jobWithKey(deps, workspaceId, idempotencyKey);
  if (!winner) throw new Error('the job was not stored and no job holds its Idempotency-Key');
  return { job: winner, created: false };
}
