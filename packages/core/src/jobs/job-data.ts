import { Prisma, type JobRow } from '../db/client.js';
import type { JobInput } from './job-schema.js';
import { defaultMaxConcurrency } from './job-plan.js';

type JobFields = Pick<
  JobRow,
  | 'name' | 'kind' | 'state' | 'schedule' | 'request' | 'steps' | 'retryPolicy' | 'maxConcurrentExecutions'
  | 'maxWorkflowDurationSeconds' | 'onSuccessUrl' | 'onFailureUrl' | 'notificationOverride' | 'overlapPolicy' | 'catchUpPolicy' | 'jitterSeconds'
>;

const jsonOrNull = (value: unknown) => (value === undefined || value === null ? null : (value as Prisma.JsonValue));

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
  };
}

// Prisma writes SQL NULL into a JSON column only when given DbNull.
const json = (value: Prisma.JsonValue | null) => (value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue));

/** jobFields in the shape of a Prisma update. */
export function jobColumns(input: JobInput) {
  const fields = jobFields(input);
  return { ...fields, schedule: json(fields.schedule), request: json(fields.request), steps: json(fields.steps), retryPolicy: fields.retryPolicy as Prisma.InputJsonValue };
}
