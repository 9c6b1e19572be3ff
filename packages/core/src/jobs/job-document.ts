import { SCHEDULED_KINDS } from '@cronsvc/contracts';
import type { JobRow } from '../db/client.js';

/**
 * The stored job in the shape of its create input: what a PATCH merges into, and what an export
 * writes as one job of an apply document (docs/JOBS-AS-CODE.md). Fields the service sets (id,
 * next_run_at, timestamps, the webhook token) are not part of it, and a webhook secret, which is
 * write-only, never is.
 */
export function jobDocument(job: JobRow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (job.key !== null) out.key = job.key;
  Object.assign(out, {
    name: job.name,
    kind: job.kind,
    state: job.state,
  });
  if (job.schedule !== null) out.schedule = job.schedule;
  if (job.request !== null) out.request = job.request;
  if (job.steps !== null) out.steps = job.steps;
  out.retry_policy = job.retryPolicy;
  out.max_concurrent_executions = job.maxConcurrentExecutions;
  if (job.maxWorkflowDurationSeconds !== null) out.max_workflow_duration_seconds = job.maxWorkflowDurationSeconds;
  if ((SCHEDULED_KINDS as readonly string[]).includes(job.kind)) {
    Object.assign(out, { overlap_policy: job.overlapPolicy, catch_up_policy: job.catchUpPolicy, jitter_seconds: job.jitterSeconds });
  }
  Object.assign(out, {
    on_success_url: job.onSuccessUrl,
    on_failure_url: job.onFailureUrl,
    notification_override: job.notificationOverride,
    tags: job.tags,
  });
  return out;
}
