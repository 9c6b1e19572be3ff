import { Prisma, type JobRow } from '../db/client.js';
import { storedSize } from '../db/stored-bytes.js';
import type { JobInput } from './job-schema.js';
import { defaultMaxConcurrency } from './job-plan.js';
import { summarizeJob } from './job-summary.js';

type JobFields = Pick<
  JobRow,
  | 'name' | 'kind' | 'state' | 'schedule' | 'request' | 'steps' | 'retryPolicy' | 'maxConcurrentExecutions'
  | 'maxWorkflowDurationSeconds' | 'onSuccessUrl' | 'onFailureUrl' | 'notificationOverride' | 'overlapPolicy' | 'catchUpPolicy' | 'jitterSeconds' | 'summary'
  | 'key' | 'tags'
>;

const jsonOrNull = (value: unknown) => (value === undefined || value === null ? null : (value as Prisma.JsonValue));

/**
 * What a job's definition weighs against MAX_STORED_BYTES_PER_WORKSPACE: its name, schedule,
 * request or steps, retry policy, callbacks, Idempotency-Key, key and tags (none counts nothing).
 */
export function jobStoredBytes(
  job: Pick<JobRow, 'name' | 'schedule' | 'request' | 'steps' | 'retryPolicy' | 'onSuccessUrl' | 'onFailureUrl' | 'idempotencyKey'> & Partial<Pick<JobRow, 'key' | 'tags'>>,
): number {
  const tags = Array.isArray(job.tags) && job.tags.length > 0 ? job.tags : null;
  return storedSize(job.name, job.schedule, job.request, job.steps, job.retryPolicy, job.onSuccessUrl, job.onFailureUrl, job.idempotencyKey, job.key, tags);
}

/** The columns a validated job input sets, as stored: create and update both write exactly these. */
export function jobFields(input: JobInput): JobFields {
  return {
    name: input.name,
    kind: input.kind,
    state: input.state,
    schedule: jsonOrNull(input.schedule),
    request: jsonOrNull(input.request),
    steps: jsonOrNull(input.steps),
    retryPolicy: input.retry_policy as Prisma.JsonValue,
    maxConcurrentExecutions: input.max_concurrent_executions ?? defaultMaxConcurrency(input.kind),
    maxWorkflowDurationSeconds: input.max_workflow_duration_seconds ?? null,
    onSuccessUrl: input.on_success_url,
    onFailureUrl: input.on_failure_url,
    notificationOverride: input.notification_override,
    // Kinds without a schedule keep the defaults, so a kind changed back starts from them.
    overlapPolicy: input.overlap_policy ?? 'queue',
    catchUpPolicy: input.catch_up_policy ?? 'one',
    jitterSeconds: input.jitter_seconds ?? 0,
    summary: summarizeJob(input) as Prisma.JsonValue,
    key: input.key ?? null,
    tags: input.tags ?? [],
  };
}

// Prisma writes SQL NULL into a JSON column only when given DbNull.
const json = (value: Prisma.JsonValue | null) => (value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue));

/** jobFields in the shape of a Prisma update, with the size of the job they make (its Idempotency-Key unchanged). */
export function jobColumns(input: JobInput, idempotencyKey: string | null) {
  const fields = jobFields(input);
  return {
    ...fields,
    schedule: json(fields.schedule),
    request: json(fields.request),
    steps: json(fields.steps),
    retryPolicy: fields.retryPolicy as Prisma.InputJsonValue,
    summary: fields.summary as Prisma.InputJsonValue,
    tags: fields.tags as Prisma.InputJsonValue,
    storedBytes: jobStoredBytes({ ...fields, idempotencyKey }),
  };
}
