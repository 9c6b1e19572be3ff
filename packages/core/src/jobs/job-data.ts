import { Prisma } from '../db/client.js';
import type { JobInput } from './job-schema.js';
import { defaultMaxConcurrency } from './job-plan.js';

const json = (value: unknown) => (value === undefined || value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue));

/** The columns a validated job input sets; create and update both write exactly these. */
export function jobColumns(input: JobInput) {
  return {
    name: input.name,
    kind: input.kind,
    state: input.state,
    schedule: json(input.schedule),
    request: json(input.request),
    steps: json(input.steps),
    retryPolicy: input.retry_policy as Prisma.InputJsonValue,
    maxConcurrentExecutions: input.max_concurrent_executions ?? defaultMaxConcurrency(input.kind),
    maxWorkflowDurationSeconds: input.max_workflow_duration_seconds ?? null,
    onSuccessUrl: input.on_success_url,
    onFailureUrl: input.on_failure_url,
    notificationOverride: input.notification_override,
  };
}
