import { Prisma, type JobRow } from '../db/client.js';
import { AppError } from '../errors/app-error.js';
import { newId } from '../ids/ids.js';
import type { Deps } from '../runtime/deps.js';
import { validate } from '../validation/validate.js';
import { enqueueCommitted, executionRow, firstAttempt } from '../executions/create-executions.js';
import { jobSchema, STEP_KINDS, type JobInput } from './job-schema.js';
import { plannedNextRun } from './job-plan.js';
import { jobColumns } from './job-data.js';
import { checkJobTargets } from './check-job-targets.js';
import { checkJobReferences } from './check-job-references.js';
import { findJob } from './job-store.js';

export interface CreateJobResult {
  job: JobRow;
  /** False when an Idempotency-Key matched an existing job, which is returned instead. */
  created: boolean;
}

export function assertSupportedKind(kind: string): void {
  if ((STEP_KINDS as readonly string[]).includes(kind)) {
    throw AppError.validation([{ path: 'kind', message: `${kind} jobs are not supported by this version yet` }]);
  }
}

export async function createJob(deps: Deps, workspaceId: string, body: unknown, idempotencyKey?: string): Promise<CreateJobResult> {
  // A used key answers with its job whatever this body says, valid or not (D3).
  if (idempotencyKey !== undefined) {
    const existing = await deps.db.job.findFirst({ where: { workspaceId, idempotencyKey } });
    if (existing) return { job: existing, created: false };
  }
  const now = deps.clock.now();
  const input = validate<JobInput>(jobSchema, body, { context: { now } });
  if (input.state === 'completed') throw AppError.validation([{ path: 'state', message: 'a new job cannot be completed' }]);
  assertSupportedKind(input.kind);
  checkJobTargets(deps.config, input);
  await checkJobReferences(deps.db, workspaceId, input);

  const jobId = newId('job');
  const base = { kind: input.kind, state: input.state, schedule: input.schedule ?? null, scheduleAnchor: now };
  const data: Prisma.JobCreateInput = {
    ...jobColumns(input),
    id: jobId,
    workspace: { connect: { id: workspaceId } },
    createdAt: now,
    updatedAt: now,
    scheduleAnchor: now,
    nextRunAt: plannedNextRun(base, now),
    idempotencyKey: idempotencyKey ?? null,
  };
  const firesNow = input.kind === 'one_time' && input.state === 'active';
  try {
    const { job, execution } = await deps.db.$transaction(async (tx) => {
      const job = await tx.job.create({ data });
      const execution = firesNow
        ? await tx.execution.create({ data: executionRow({ workspaceId, jobId, jobName: job.name, source: 'schedule', scheduledFor: now }) })
        : null;
      return { job, execution };
    });
    if (execution) await enqueueCommitted(deps, [firstAttempt(execution)]);
    return { job, created: true };
  } catch (error) {
    // Two requests with one Idempotency-Key raced: the unique index let one through.
    if (idempotencyKey !== undefined && error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      const existing = await deps.db.job.findFirst({ where: { workspaceId, idempotencyKey } });
      if (existing) return { job: await findJob(deps.db, workspaceId, existing.id), created: false };
    }
    throw error;
  }
}
