import type { ExecutionRow } from '../db/client.js';
import type { Deps } from '../runtime/deps.js';
import { findJob } from '../jobs/job-store.js';
import { enqueueCommitted, executionRow, firstAttempt } from './create-executions.js';

/** A manual execution scheduled now; the job's own schedule is untouched (SPEC 4.1). */
export async function runNow(deps: Deps, workspaceId: string, jobId: string): Promise<ExecutionRow> {
  const job = await findJob(deps.db, workspaceId, jobId);
  const execution = await deps.db.execution.create({
    data: executionRow({ workspaceId, jobId: job.id, jobName: job.name, source: 'manual', scheduledFor: deps.clock.now() }),
  });
  await enqueueCommitted(deps, [firstAttempt(execution)]);
  return execution;
}
