import type { Config } from '../config/config.js';
import type { JobRow } from '../db/client.js';
import { triggerUrl } from '../workflows/public-urls.js';
import { revealWebhookToken } from '../workflows/webhook-credentials.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * The job as the API shows it (SPEC 2.1, DECISIONS D3). A webhook_trigger job shows its trigger
 * token (decrypted with the configured key) and URL, and whether a shared secret is set.
 */
export function serializeJob(job: JobRow, config: Pick<Config, 'secretsEncryptionKey' | 'publicBaseUrl'>): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: job.id,
    name: job.name,
    kind: job.kind,
    state: job.state,
  };
  if (job.schedule !== null) out.schedule = job.schedule;
  if (job.request !== null) out.request = job.request;
  if (job.steps !== null) out.steps = job.steps;
  Object.assign(out, {
    retry_policy: job.retryPolicy,
    next_run_at: iso(job.nextRunAt),
    max_concurrent_executions: job.maxConcurrentExecutions,
  });
  if (job.maxWorkflowDurationSeconds !== null) out.max_workflow_duration_seconds = job.maxWorkflowDurationSeconds;
  if (job.kind === 'webhook_trigger') {
    const token = revealWebhookToken(config.secretsEncryptionKey, job);
    Object.assign(out, {
      webhook_token: token,
      trigger_url: token === null ? null : triggerUrl(config.publicBaseUrl, token),
      webhook_secret_configured: job.webhookSecretHash !== null,
    });
  }
  Object.assign(out, {
    on_success_url: job.onSuccessUrl,
    on_failure_url: job.onFailureUrl,
    notification_override: job.notificationOverride,
    idempotency_key: job.idempotencyKey,
    created_at: iso(job.createdAt),
    updated_at: iso(job.updatedAt),
  });
  return out;
}
