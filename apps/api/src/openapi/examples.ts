import type {
  PublicStatusPage, StatusPage,
  ShieldsEndpoint,
  JobStats,
  ApiToken, ApiTokenCreated, ApplyDocument, ApplyResult, Approval, AuditEvent, ApprovalDecisionResult, Channel, ChannelTestResult, Delivery, DlqStats, ErrorCode, ErrorEnvelope, Execution, ExecutionSummary, Fire,
  HostLimit, ImportResult, Job, JobContext, JobSummary, ListEnvelope, Monitor, MonitorPing, PingResult, PurgeResult, ReplayBatchResult, ResumeResult, Rule, Secret, SigningKey,
  TagList, TriggerResult, WorkspaceCreated, WorkspaceFire,
} from '@cronsvc/contracts';
import { IMPORT_NOTES } from '@cronsvc/core';

// Examples of the document's answers, declared as the contract types the API answers with, so
// the compiler rejects one that drifts from them; a test also checks each against its schema.

const at = '2026-11-27T09:00:00.000Z';
const later = '2026-11-27T09:00:00.412Z';

export const job: Job = {
  id: 'job_Vq3n1mKc0tX9yQ2wP8sLaA',
  key: 'reports.nightly',
  name: 'nightly report',
  kind: 'cron',
  state: 'active',
  schedule: { cron: '0 2 * * *' },
  request: {
    url: 'https://reports.example.com/run',
    method: 'POST',
    headers: { Authorization: 'Bearer {{secret.reports_token}}' },
    body: { report: 'daily' },
    timeout_seconds: 30,
    success_statuses: [200, 201, 202, 204],
  },
  retry_policy: { max_attempts: 3, retry_on_statuses: [429, 500, 502, 503, 504] },
  next_run_at: '2026-11-28T02:00:00.000Z',
  max_concurrent_executions: 0,
  overlap_policy: 'queue',
  catch_up_policy: 'one',
  jitter_seconds: 0,
  on_success_url: null,
  on_failure_url: 'https://hooks.example.com/cron-failed',
  notification_override: 'inherit',
  tags: ['reports', 'team:data'],
  idempotency_key: null,
  badge_url: 'https://cron.example.com/v1/badges/bdg_9e107d9d372bb6826bd81d3542a419d69e107d9d372bb6826bd81d3542a419d6.svg',
  created_at: at,
  updated_at: at,
};

/** A job as GET /v1/jobs lists it: its request cut to URL, method and timeout. */
export const jobSummary: JobSummary = {
  ...job,
  request: { url: job.request!.url, method: job.request!.method, timeout_seconds: job.request!.timeout_seconds },
};

export const execution: Execution = {
  id: 'exe_2Hq8wLm5nB0cR7tV1yX4zA',
  job_id: job.id,
  job_name: job.name,
  status: 'succeeded',
  source: 'schedule',
  scheduled_for: at,
  attempt_count: 1,
  attempts: [
    {
      number: 1,
      status: 'SUCCESS',
      statusCode: 200,
      latencyMs: 412,
      timings: { dns_ms: 12, connect_ms: 31, tls_ms: 58, ttfb_ms: 305, total_ms: 412 },
      request: {
        method: 'POST',
        url: 'https://reports.example.com/run',
        headers: {
          Authorization: 'Bearer [secret]',
          'Content-Type': 'application/json',
          'X-Cron-Service-Execution-Id': 'exe_2Hq8wLm5nB0cR7tV1yX4zA',
          'webhook-id': 'exe_2Hq8wLm5nB0cR7tV1yX4zA',
          'webhook-timestamp': '1795770000',
          'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
          'X-Cron-Service-Signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
        },
        body: '{"report":"daily"}',
        bodyTruncated: false,
      },
      bodyPreview: '{"ok":true}',
      responseHeaders: { 'content-type': 'application/json' },
      errorClass: null,
      errorMessage: null,
      startedAt: at,
      budget_wait_ms: 0,
      created_at: later,
      updated_at: later,
    },
  ],
  trigger_input: null,
  final_response: { statusCode: 200, bodyPreview: '{"ok":true}' },
  final_output: null,
  error_class: null,
  error_message: null,
  waiting_reason: null,
  waiting_payload: null,
  waiting_expires_at: null,
  dead_lettered_at: null,
  replay_of_id: null,
  created_at: at,
  updated_at: later,
  started_at: at,
  finished_at: later,
  duration_ms: 412,
};

/** What run-now, replay and DLQ replay answer: the new execution, queued. */
export const queuedExecution: Execution = {
  ...execution,
  id: 'exe_9Kd3pQ7rS1tU5vW8xY2zAb',
  status: 'queued',
  source: 'manual',
  attempt_count: 0,
  attempts: [],
  final_response: null,
  updated_at: at,
  started_at: null,
  finished_at: null,
  duration_ms: null,
};

export const failedExecution: Execution = {
  ...execution,
  id: 'exe_4Fa6gHj8kLm0nPq2rSt4uV',
  status: 'failed',
  attempt_count: 3,
  attempts: undefined,
  final_response: { statusCode: 503, bodyPreview: 'upstream unavailable' },
  error_class: 'HTTP_5XX',
  error_message: 'status 503 is not a success status',
  dead_lettered_at: later,
};

export const statusPage: StatusPage = {
  id: 'stp_3Kd7fGh9jKl1mNp3qRs5tU',
  name: 'Acme services',
  job_ids: ['job_4Fz9kQ2mXv7bN1cR8tY3wP'],
  monitor_ids: ['mon_6Mg8iKl0mNo2pQr4sTu6vW'],
  public_url: 'https://cron.example.com/v1/status/sts_8f14e45fceea167a5a36dedd4bea25438f14e45fceea167a5a36dedd4bea2543',
  created_at: '2026-11-26T02:00:00.000Z',
  updated_at: '2026-11-26T02:00:00.000Z',
};

export const publicStatusPage: PublicStatusPage = {
  name: 'Acme services',
  updated_at: '2026-11-28T09:00:00.000Z',
  items: [
    {
      name: 'nightly report',
      state: 'passing',
      uptime_90d: 0.9889,
      days: Array.from({ length: 90 }, (_, i) => ({ date: new Date(Date.UTC(2026, 7, 31 + i)).toISOString().slice(0, 10), state: i === 60 ? 'failing' : 'passing' })),
    },
    {
      // Created 30 days ago, down for 2 hours once: uptime is time up over time up or down.
      name: 'backups',
      state: 'up',
      uptime_90d: 0.9972,
      days: Array.from({ length: 90 }, (_, i) => ({ date: new Date(Date.UTC(2026, 7, 31 + i)).toISOString().slice(0, 10), state: i < 60 ? 'none' : i === 75 ? 'down' : 'up' })),
    },
  ],
};

export const shields: ShieldsEndpoint = { schemaVersion: 1, label: 'nightly report', message: 'passing', color: '2e7d32' };

/** A day of a job running every hour, one run failed. */
export const jobStats: JobStats = {
  window: '24h',
  executions: 24,
  succeeded: 23,
  failed: 1,
  success_rate: 23 / 24,
  duration_ms: { p50: 412, p95: 1_187, p99: 2_050 },
  buckets: Array.from({ length: 24 }, (_, i) => ({
    start: new Date(Date.UTC(2026, 10, 26, i)).toISOString(),
    executions: 1,
    failed: i === 9 ? 1 : 0,
    p50_ms: i === 9 ? 2_050 : 412,
    p95_ms: i === 9 ? 2_050 : 412,
  })),
};

/** Fires of the ledger: one that fired on time, and a window after an outage (its catch-up and a missed slot it covered). */
export const fires: Fire[] = [
  { scheduled_for: '2026-11-27T02:00:00.000Z', due_at: '2026-11-27T02:00:00.000Z', outcome: 'fired', execution_id: 'exe_9Ab2Cd4Ef6Gh8Ij0Kl2Mn4', fired_at: '2026-11-27T02:00:00.184Z', lag_ms: 184, reason: null },
  { scheduled_for: '2026-11-26T02:00:00.000Z', due_at: '2026-11-26T02:00:00.000Z', outcome: 'missed', execution_id: 'exe_1Pq3Rs5Tu7Vw9Xy1Za3Bc5', fired_at: null, lag_ms: null, reason: null },
  { scheduled_for: '2026-11-25T02:00:00.000Z', due_at: '2026-11-25T02:00:00.000Z', outcome: 'caught_up', execution_id: 'exe_1Pq3Rs5Tu7Vw9Xy1Za3Bc5', fired_at: '2026-11-26T08:12:31.007Z', lag_ms: 108_751_007, reason: null },
];

export const workspaceFires: WorkspaceFire[] = fires.map((f) => ({ ...f, job_id: job.id, job_name: job.name }));
/** An execution as the lists show it: no trigger_input, final_response or final_output, attempts without bodyPreview and request. */
export function executionSummary(e: Execution): ExecutionSummary {
  const { trigger_input: _input, final_response: _response, final_output: _output, step_executions: _steps, attempts, ...rest } = e;
  return { ...rest, ...(attempts ? { attempts: attempts.map(({ bodyPreview: _preview, request: _request, ...a }) => a) } : {}) };
}

export const list = <T>(data: T[]): ListEnvelope<T> => ({ data, total: data.length, limit: 50, offset: 0 });

export const importResult: ImportResult = {
  created: [{ ...job, name: '*/5 * * * * https://example.com/ping', schedule: { cron: '*/5 * * * *' }, request: { ...job.request!, url: 'https://example.com/ping?token=abc' } }],
  errors: [{ line: 2, text: '61 * * * * https://example.com/', message: 'schedule.cron: minute 61 is out of range 0-59' }],
  notes: [IMPORT_NOTES.utc, IMPORT_NOTES.names],
};

export const context: JobContext = { last_cursor: '8812', region: 'eu' };

export const secret: Secret = { id: 'sec_7Hs2kLp9qRt4vWx6yZa1bC', name: 'reports_token', created_at: at, updated_at: at };

export const hostLimit: HostLimit = { host: 'api.example.com', max_concurrency: 5, max_per_second: 20, cooldown_until: null, created_at: at, updated_at: at };

export const signingKey: SigningKey = { signing_key: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', created_at: at };

export const channel: Channel = {
  id: 'chn_3Jd5fGh7jKl9mNp1qRs3tU',
  name: 'ops webhook',
  type: 'webhook',
  config: {},
  configured_secrets: ['url', 'signing_secret'],
  created_at: at,
  updated_at: at,
};

export const channelTest: ChannelTestResult = { ok: true, channel_id: channel.id, provider: 'webhook' };

export const rule: Rule = {
  id: 'rul_5Lf7hJk9lMn1pQr3sTu5vW',
  channel_id: channel.id,
  event: 'on_failure',
  job_id: job.id,
  monitor_id: null,
  after_consecutive_failures: 3,
  realert_after_minutes: 60,
  snoozed_until: null,
  last_delivered_at: null,
  held_back: 0,
  created_at: at,
  updated_at: at,
};

export const delivery: Delivery = {
  id: 'dlv_8Nh0jLm2nPq4rSt6uVw8xY',
  kind: 'channel',
  channel_id: channel.id,
  rule_id: rule.id,
  event: 'on_failure',
  execution_id: failedExecution.id,
  monitor_id: null,
  url: null,
  status: 'failed',
  attempts: 5,
  last_status_code: 502,
  last_error: 'HTTP 502',
  next_attempt_at: null,
  sent_at: null,
  created_at: at,
  updated_at: later,
};

export const monitor: Monitor = {
  id: 'mon_6Mg8iKl0mNo2pQr4sTu6vW',
  name: 'backup script',
  expected_interval_sec: 86_400,
  schedule: null,
  grace_sec: 600,
  max_duration_sec: 3_600,
  state: 'up',
  last_ping_at: at,
  next_expected_at: '2026-11-28T09:00:00.000Z',
  next_due_at: '2026-11-28T09:10:00.000Z',
  last_duration_ms: 754_210,
  ping_url: 'https://cron.example.com/v1/ping/mB0x3zQ5cW8vN2kJ7hG4fD1sA9pL6tR',
  badge_url: 'https://cron.example.com/v1/badges/bdg_5d41402abc4b2a76b9719d911017c5925d41402abc4b2a76b9719d911017c592.svg',
  created_at: at,
  updated_at: at,
};

export const monitorPing: MonitorPing = {
  kind: 'success',
  exit_status: 0,
  received_at: at,
  duration_ms: 754_210,
  body_preview: 'backup done: 2.1 GiB in 12 min\n',
  source_ip: '203.0.113.7',
  user_agent: 'curl/8.5.0',
};

export const dlqStats: DlqStats = {
  total: 3,
  oldest_dead_lettered_at: later,
  by_job: [{ job_id: job.id, job_name: job.name, count: 3 }],
  by_error_class: { HTTP_5XX: 2, TIMEOUT: 1 },
};

export const replayBatch: ReplayBatchResult = {
  replayed: [{ id: failedExecution.id, execution_id: queuedExecution.id }],
  failed: [{ id: 'exe_unknown', error: 'not in the dead-letter queue' }],
};

export const purged: PurgeResult = { purged: 3 };

const token = 'pK7wQ2mN9xB4vC1zL8jH5gF3dS6aR0tY';
export const approval: Approval = {
  status: 'pending',
  execution_id: execution.id,
  execution_status: 'waiting',
  job: { id: job.id, name: 'release' },
  step_id: 'review',
  step_index: 1,
  message: 'Deploy version 2.4 to production?',
  requested_at: at,
  expires_at: '2026-11-28T09:00:00.000Z',
  decided_at: null,
  review_url: `https://cron.example.com/v1/approvals/${token}`,
  approve_url: `https://cron.example.com/v1/approvals/${token}/approve`,
  reject_url: `https://cron.example.com/v1/approvals/${token}/reject`,
  previous_steps: [{ step_id: 'build', step_index: 0, type: 'http', status: 'succeeded', status_code: 200, finished_at: at }],
};

export const decision: ApprovalDecisionResult = { status: 'approved', execution_id: execution.id };
export const resumed: ResumeResult = { resumed: true, execution_id: execution.id };
export const received: TriggerResult = { received: true };
export const pinged: PingResult = { ok: true };

export const workspace: WorkspaceCreated = { id: 'wsp_1Aa3Bb5Cc7Dd9Ee1Ff3Gg5', name: 'acme', api_token: 'csk_Zt5m8Qw2Lp4Rx7Nv1Kb3Hd6Jf9Sg0Ya2Uc', created_at: at, updated_at: at };
export const apiToken: ApiTokenCreated = {
  id: 'tok_2Bb4Cc6Dd8Ee0Ff2Gg4Hh6', name: 'dashboard', scope: 'read', expires_at: '2027-06-01T00:00:00.000Z', api_token: 'csk_Wq3e6Rt9Yu2Io5Pa8Sd1Fg4Hj7Kl0Zx3C', created_at: at,
};
export const apiTokenItem: ApiToken = { id: apiToken.id, name: 'dashboard', scope: 'read', prefix: 'csk_Wq3e6Rt9', created_at: at, last_used_at: at, expires_at: '2027-06-01T00:00:00.000Z' };
export const auditEvent: AuditEvent = {
  id: 'aud_3Cc5Dd7Ee9Ff1Gg3Hh5Ii7', action: 'job.updated', target_type: 'job', target_id: 'job_4Dd6Ee8Ff0Gg2Hh4Ii6Jj8',
  actor: { type: 'token', token_id: 'tok_2Bb4Cc6Dd8Ee0Ff2Gg4Hh6', name: 'deploy pipeline' }, request_id: '6f1c2b9e-3d4a-4e5f-8a7b-1c2d3e4f5a6b', changed_fields: ['schedule'], created_at: at,
};

export const errors: Record<ErrorCode, ErrorEnvelope> = {
  validation_failed: { error: { code: 'validation_failed', message: 'request.url: must be a valid http or https URL', details: [{ path: 'request.url', message: 'must be a valid http or https URL' }] } },
  invalid_json: { error: { code: 'invalid_json', message: 'request body is not valid JSON' } },
  unauthorized: { error: { code: 'unauthorized', message: 'a valid API token is required: Authorization: Bearer <token>' } },
  forbidden: { error: { code: 'forbidden', message: 'this API token has scope read; DELETE /v1/jobs/:id needs scope full' } },
  not_found: { error: { code: 'not_found', message: 'job not found' } },
  method_not_allowed: { error: { code: 'method_not_allowed', message: 'PUT is not allowed on /v1/jobs; use GET, POST' } },
  unsupported_media_type: { error: { code: 'unsupported_media_type', message: 'the request body must be JSON: Content-Type: application/json' } },
  invalid_state: { error: { code: 'invalid_state', message: 'the job is not active' } },
  conflict: { error: { code: 'conflict', message: 'a secret named reports_token already exists' } },
  secret_in_use: { error: { code: 'secret_in_use', message: 'the secret is used by channel ops webhook' } },
  limit_exceeded: { error: { code: 'limit_exceeded', message: 'this workspace has 100000 jobs, the most it may have (MAX_JOBS_PER_WORKSPACE)' } },
  already_decided: { error: { code: 'already_decided', message: 'this approval was already approved' } },
  payload_too_large: { error: { code: 'payload_too_large', message: 'request body is larger than 1 MiB' } },
  rate_limited: { error: { code: 'rate_limited', message: 'this API token made more than 600 requests this minute (RATE_LIMIT_PER_MINUTE); retry in 12 s' } },
  internal_error: { error: { code: 'internal_error', message: 'internal error (request id 6f1c2b9e-3d4a-4e5f-8a7b-1c2d3e4f5a6b)' } },
  service_unavailable: { error: { code: 'service_unavailable', message: 'the service is temporarily unavailable; try again' } },
};

export const applyResult: ApplyResult = {
  created: ['reports.weekly'],
  updated: [{ key: 'reports.nightly', fields: ['schedule', 'tags'] }],
  deleted: ['reports.legacy'],
  unchanged: ['billing.invoices'],
};

const { id: _id, next_run_at: _next, created_at: _created, updated_at: _updated, idempotency_key: _idempotency, key: _key, badge_url: _badge, ...stored } = job;
export const applyDocument: ApplyDocument = { jobs: [{ ...stored, key: 'reports.nightly' }] };

export const tagList: TagList = { data: [{ tag: 'billing', jobs: 12 }, { tag: 'reports', jobs: 3 }] };
