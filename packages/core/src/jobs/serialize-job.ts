import {
  SCHEDULED_KINDS, type CatchUpPolicy, type Job, type JobKind, type JobState, type JobSummary, type NotificationOverride, type OverlapPolicy, type RequestSpec,
  type RetryPolicy, type Schedule, type Step,
} from '@cronsvc/contracts';
import type { Config } from '../config/config.js';
import type { JobRow } from '../db/client.js';
import { badgeUrl, triggerUrl } from './public-urls.js';
import { revealWebhookToken } from './webhook-credentials.js';
import type { JobSummaryFields } from './job-summary.js';
import type { ListedJob } from './list-jobs.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

type Shown = Pick<Config, 'secretsEncryptionKey' | 'publicBaseUrl'>;

/** Every field of a job as shown, with `shape` (its request or steps, whole or summarized) after the schedule. */
function shown<T extends { request?: unknown; steps?: unknown }>(job: ListedJob, config: Shown, shape: T) {
  // Json columns hold what the job schema validated on the way in.
  return {
    id: job.id,
    key: job.key,
    name: job.name,
    kind: job.kind as JobKind,
    state: job.state as JobState,
    ...(job.schedule !== null ? { schedule: job.schedule as Schedule } : {}),
    ...shape,
    retry_policy: job.retryPolicy as unknown as RetryPolicy,
    next_run_at: iso(job.nextRunAt),
    max_concurrent_executions: job.maxConcurrentExecutions,
    ...(job.maxWorkflowDurationSeconds !== null ? { max_workflow_duration_seconds: job.maxWorkflowDurationSeconds } : {}),
    ...((SCHEDULED_KINDS as readonly string[]).includes(job.kind)
      ? { overlap_policy: job.overlapPolicy as OverlapPolicy, catch_up_policy: job.catchUpPolicy as CatchUpPolicy, jitter_seconds: job.jitterSeconds }
      : {}),
    ...(job.kind === 'webhook_trigger' ? webhookFields(job, config) : {}),
    on_success_url: job.onSuccessUrl,
    on_failure_url: job.onFailureUrl,
    notification_override: job.notificationOverride as NotificationOverride,
    tags: job.tags as string[],
    idempotency_key: job.idempotencyKey,
    badge_url: badgeUrl(config.publicBaseUrl, job.badgeToken),
    created_at: job.createdAt.toISOString(),
    updated_at: job.updatedAt.toISOString(),
  };
}

/**
 * The job as the API shows it (docs/JOBS.md, "A job"). A webhook_trigger job shows its trigger
 * token (decrypted with the configured key) and URL, and whether a shared secret is set.
 */
export function serializeJob(job: JobRow, config: Shown): Job {
  return shown(job, config, {
    ...(job.request !== null ? { request: job.request as unknown as RequestSpec } : {}),
    ...(job.steps !== null ? { steps: job.steps as unknown as Step[] } : {}),
  });
}

/** A job as a list shows it (docs/API.md, "Lists"): its request and steps summarized, everything else as serializeJob. */
export function serializeJobSummary(job: ListedJob, config: Shown): JobSummary {
  const summary = job.summary as JobSummaryFields;
  return shown(job, config, {
    ...(summary.request ? { request: summary.request } : {}),
    ...(summary.steps ? { steps: summary.steps } : {}),
  });
}

function webhookFields(job: ListedJob, config: Shown): Pick<Job, 'webhook_token' | 'trigger_url' | 'webhook_secret_configured'> {
  const token = revealWebhookToken(config.secretsEncryptionKey, job);
  return {
    webhook_token: token,
    trigger_url: token === null ? null : triggerUrl(config.publicBaseUrl, token),
    webhook_secret_configured: job.webhookSecretHash !== null,
  };
}
