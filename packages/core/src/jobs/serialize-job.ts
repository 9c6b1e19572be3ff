import {
  SCHEDULED_KINDS, type CatchUpPolicy, type Job, type JobKind, type JobState, type NotificationOverride, type OverlapPolicy, type RequestSpec, type RetryPolicy,
  type Schedule, type Step,
} from '@cronsvc/contracts';
import type { Config } from '../config/config.js';
import type { JobRow } from '../db/client.js';
import { triggerUrl } from './public-urls.js';
import { revealWebhookToken } from './webhook-credentials.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * The job as the API shows it (docs/JOBS.md, "A job"). A webhook_trigger job shows its trigger
 * token (decrypted with the configured key) and URL, and whether a shared secret is set.
 */
export function serializeJob(job: JobRow, config: Pick<Config, 'secretsEncryptionKey' | 'publicBaseUrl'>): Job {
  // Json columns hold what the job schema validated on the way in.
  return {
    id: job.id,
    name: job.name,
    kind: job.kind as JobKind,
    state: job.state as JobState,
    ...(job.schedule !== null ? { schedule: job.schedule as Schedule } : {}),
    ...(job.request !== null ? { request: job.request as unknown as RequestSpec } : {}),
    ...(job.steps !== null ? { steps: job.steps as unknown as Step[] } : {}),
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
    idempotency_key: job.idempotencyKey,
    created_at: job.createdAt.toISOString(),
    updated_at: job.updatedAt.toISOString(),
  };
}

function webhookFields(job: JobRow, config: Pick<Config, 'secretsEncryptionKey' | 'publicBaseUrl'>): Pick<Job, 'webhook_token' | 'trigger_url' | 'webhook_secret_configured'> {
  const token = revealWebhookToken(config.secretsEncryptionKey, job);
  return {
    webhook_token: token,
    trigger_url: token === null ? null : triggerUrl(config.publicBaseUrl, token),
    webhook_secret_configured: job.webhookSecretHash !== null,
  };
}
