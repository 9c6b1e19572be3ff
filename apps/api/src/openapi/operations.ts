import type { ErrorCode } from '@cronsvc/contracts';
import { requestSchemas } from '@cronsvc/core';
import type Joi from 'joi';
import * as ex from './examples.js';

/**
 * Every operation of the API under /v1 and /admin/v1, as the OpenAPI document describes it
 * (document.ts builds it). A test walks Express's routes and fails on one missing here.
 */

export type Auth = 'api' | 'admin' | 'token' | 'none';

/** The groups of operations, in the order a reader meets them. */
export const TAGS = [
  { name: 'Jobs', description: 'Scheduled HTTP requests and step-driven workflows: create, change, pause, run now, import a crontab, the job context store.' },
  { name: 'Tags', description: 'Tags across the workspace\'s jobs: how many jobs carry each, and pause or resume every job with a tag.' },
  { name: 'Executions', description: 'Runs of jobs with their attempts and step executions: list, inspect, replay, park, resume.' },
  { name: 'Fires', description: 'The fire ledger: every expected fire of a scheduled job, with its outcome (fired, late, caught up, missed, skipped, pending).' },
  { name: 'Dead letters', description: 'Executions that failed for good: list, count, replay, remove.' },
  { name: 'Secrets', description: 'Workspace secrets used as `{{secret.NAME}}` in requests (values are never returned), and the key that signs requests to targets.' },
  { name: 'Notifications', description: 'Channels (webhook, email, chat), the rules that send job and monitor events to them, and the deliveries made.' },
  { name: 'Monitors', description: 'Heartbeat monitors: they go down when pings stop arriving.' },
  { name: 'Access', description: "The workspace's API tokens and their scopes (`full`, `run`, `read`), and the audit log of every change." },
  { name: 'Host limits', description: "Budgets per target host (requests in flight, requests per second), shared by every job and workflow step of the workspace, and the host's Retry-After cool-down." },
  { name: 'Public', description: 'Endpoints called without an API token: the secret token in the URL is the credential (pings, triggers, resume and approval links).' },
  { name: 'Admin', description: 'Workspaces and their API tokens, with ADMIN_TOKEN.' },
  { name: 'Reference', description: 'This document.' },
] as const;

export type Tag = (typeof TAGS)[number]['name'];

/** A success answer: a component of the contract, a list of one, or no body. */
export interface Success {
  description: string;
  schema?: string | { list: string };
  example?: unknown;
  /** Answers in other media types than JSON, with what each is. */
  otherMedia?: { [type: string]: string };
}

export interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The Express pattern, e.g. `/v1/jobs/:id`. */
  path: string;
  summary: string;
  description?: string;
  tag: Tag;
  auth: Auth;
  body?: { schema: Joi.Schema | 'any' | 'decision' | 'jobCreate' | 'jobPatch' | 'channelCreate' | 'channelPatch'; required: boolean; description?: string; example?: unknown };
  query?: Joi.ObjectSchema;
  headers?: { name: string; description: string }[];
  success: Record<number, Success>;
  /** Errors beyond those every operation of its kind can answer (see document.ts). */
  errors?: ErrorCode[];
}

const s = requestSchemas;
const queued = { description: 'The new execution, queued.', schema: 'Execution', example: ex.queuedExecution };
const deleted = { description: 'Deleted.' };

const jobs: Operation[] = [
  {
    method: 'post', path: '/v1/jobs', tag: 'Jobs', auth: 'api', summary: 'Create a job',
    description: 'With an `Idempotency-Key` already used in the workspace, answers 200 with the existing job instead of creating another.',
    headers: [{ name: 'Idempotency-Key', description: '1 to 255 printable ASCII characters; a key used before returns the job it created.' }],
    body: {
      schema: 'jobCreate',
      required: true,
      example: { name: 'nightly report', kind: 'cron', schedule: { cron: '0 2 * * *' }, request: { url: 'https://reports.example.com/run', method: 'POST', headers: { Authorization: 'Bearer {{secret.reports_token}}' } } },
    },
    success: { 201: { description: 'The job.', schema: 'Job', example: ex.job }, 200: { description: 'The job an earlier request with the same Idempotency-Key created.', schema: 'Job', example: ex.job } },
    errors: ['limit_exceeded'],
  },
  {
    method: 'post', path: '/v1/jobs/import', tag: 'Jobs', auth: 'api', summary: 'Import a crontab',
    description:
      'Each good line becomes a `cron` job named `"<expression> <url>"`, the URL without its query string and credentials; good lines are created even when others fail. `notes` says that the times are UTC (cron ran the lines in local time) and when names left part of a URL out.',
    body: { schema: s.jobImport, required: true, example: { crontab: '*/5 * * * * https://example.com/ping?token=abc\n# comments are skipped\n', default_url: 'https://example.com/' } },
    success: { 201: { description: 'The jobs created and the lines that failed.', schema: 'ImportResult', example: ex.importResult } },
    errors: ['limit_exceeded'],
  },
  // Jobs as code (docs/JOBS-AS-CODE.md)
  {
    method: 'post', path: '/v1/jobs/apply', tag: 'Jobs', auth: 'api', summary: 'Apply a document of keyed jobs',
    description:
      'Matches jobs by `key`: creates those not stored, changes those that differ (each given job is its whole definition; fields left out take their defaults, except `state`, which stays as it is unless given), and with `prune` deletes the keyed jobs not given (only those with `prune_tag` when set). Unkeyed jobs are never touched. All or nothing: any invalid job answers 400 naming it (`jobs[3].request.url`) and nothing changes. `dry_run` answers the same and changes nothing.',
    body: { schema: s.jobApply, required: true, example: { jobs: ex.applyDocument.jobs, prune: true, prune_tag: 'reports' } },
    success: { 200: { description: 'The keys created, updated (with the top-level fields that change), deleted and unchanged.', schema: 'ApplyResult', example: ex.applyResult } },
    errors: ['conflict', 'limit_exceeded'],
  },
  {
    method: 'get', path: '/v1/jobs/export', tag: 'Jobs', auth: 'api', summary: 'Export the keyed jobs as an apply document', query: s.jobExport,
    success: { 200: { description: 'Every keyed job (with `tag`, when given), sorted by key, without the fields the service sets; secret references as written.', schema: 'ApplyDocument', example: ex.applyDocument } },
  },
  { method: 'get', path: '/v1/jobs', tag: 'Jobs', auth: 'api', summary: 'List jobs', query: s.jobList, success: { 200: { description: 'A page of jobs, each with its request or steps summarized (GET /v1/jobs/:id has the whole job).', schema: { list: 'JobSummary' }, example: ex.list([ex.jobSummary]) } } },
  { method: 'get', path: '/v1/jobs/:id', tag: 'Jobs', auth: 'api', summary: 'Get a job', success: { 200: { description: 'The job.', schema: 'Job', example: ex.job } } },
  {
    method: 'patch', path: '/v1/jobs/:id', tag: 'Jobs', auth: 'api', summary: 'Change a job',
    description: 'Top-level fields replace; `request`, `schedule` and `retry_policy` merge one level deep (an inner field set to null returns to its default); `headers`, `body` and `steps` replace whole.',
    body: { schema: 'jobPatch', required: true, example: { schedule: { cron: '30 2 * * *' }, retry_policy: { max_attempts: 5 } } },
    success: { 200: { description: 'The job after the change.', schema: 'Job', example: ex.job } },
    errors: ['invalid_state'],
  },
  { method: 'delete', path: '/v1/jobs/:id', tag: 'Jobs', auth: 'api', summary: 'Delete a job, its executions and its notification rules', success: { 204: deleted } },
  { method: 'post', path: '/v1/jobs/:id/pause', tag: 'Jobs', auth: 'api', summary: 'Pause a job', success: { 200: { description: 'The paused job.', schema: 'Job', example: { ...ex.job, state: 'paused', next_run_at: null } } }, errors: ['invalid_state'] },
  { method: 'post', path: '/v1/jobs/:id/resume', tag: 'Jobs', auth: 'api', summary: 'Resume a paused job', success: { 200: { description: 'The active job, its next run computed from now.', schema: 'Job', example: ex.job } }, errors: ['invalid_state'] },
  { method: 'post', path: '/v1/jobs/:id/run-now', tag: 'Jobs', auth: 'api', summary: 'Run a job now (source manual)', success: { 202: queued } },
  { method: 'get', path: '/v1/jobs/:id/context', tag: 'Jobs', auth: 'api', summary: "Read a job's context store", success: { 200: { description: 'The bare map of keys to values.', schema: 'JobContext', example: ex.context } } },
  {
    method: 'patch', path: '/v1/jobs/:id/context', tag: 'Jobs', auth: 'api', summary: "Change a job's context store",
    body: { schema: s.jobContextPatch, required: true, example: { last_cursor: '9120', obsolete: null } },
    success: { 200: { description: 'The map after the change; a key set to null is deleted.', schema: 'JobContext', example: ex.context } },
  },
  { method: 'get', path: '/v1/jobs/:id/executions', tag: 'Executions', auth: 'api', summary: "List a job's executions", query: s.executionList, success: { 200: { description: 'A page of executions, without trigger_input, final_response and final_output (GET /v1/executions/:id has them).', schema: { list: 'ExecutionSummary' }, example: ex.list([ex.executionSummary(ex.execution)]) } } },
  {
    method: 'get', path: '/v1/jobs/:id/fires', tag: 'Fires', auth: 'api', summary: "List a job's expected fires (the fire ledger)",
    description: 'Every slot of the schedule while the job was active, newest `scheduled_for` first, with its outcome: `pending`, `fired`, `late`, `caught_up`, `missed` or `skipped`. `from` and `to` bound `scheduled_for`, both inclusive. Manual runs never appear.',
    query: s.jobFireList,
    success: { 200: { description: 'A page of fires.', schema: { list: 'Fire' }, example: ex.list(ex.fires) } },
  },
  { method: 'post', path: '/v1/jobs/:id/badge/rotate', tag: 'Jobs', auth: 'api', summary: "Give a job's badge a new URL (the old one stops answering)", success: { 200: { description: 'The job, with its new badge_url.', schema: 'Job', example: ex.job } } },
  {
    method: 'get', path: '/v1/jobs/:id/stats', tag: 'Executions', auth: 'api', summary: "A job's statistics: executions, success rate, duration percentiles",
    description:
      'Executions that ended in the window: `24h` (24 hourly buckets, the current hour last) or `7d`, `30d` (daily UTC buckets, today last). Read from an hourly rollup kept as executions end; percentiles are within 10% of the exact value. Rates are 0..1; rates and percentiles are null with no executions.',
    query: s.jobStats,
    success: { 200: { description: 'The statistics.', schema: 'JobStats', example: ex.jobStats } },
  },
  { method: 'get', path: '/v1/jobs/:id/notification-rules', tag: 'Notifications', auth: 'api', summary: "List a job's notification rules", query: s.pageList, success: { 200: { description: 'A page of rules.', schema: { list: 'Rule' }, example: ex.list([ex.rule]) } } },
  {
    method: 'post', path: '/v1/jobs/:id/notification-rules', tag: 'Notifications', auth: 'api', summary: 'Add a notification rule to a job',
    body: { schema: s.jobRuleCreate, required: true, example: { channel_id: ex.channel.id, event: 'on_failure' } },
    success: { 201: { description: 'The rule.', schema: 'Rule', example: ex.rule } },
    errors: ['conflict'],
  },
  { method: 'delete', path: '/v1/jobs/:id/notification-rules/:rule_id', tag: 'Notifications', auth: 'api', summary: "Remove a job's notification rule", success: { 204: deleted } },
];

const executions: Operation[] = [
  { method: 'get', path: '/v1/executions', tag: 'Executions', auth: 'api', summary: 'List executions', query: s.executionList, success: { 200: { description: 'A page of executions, without trigger_input, final_response and final_output (GET /v1/executions/:id has them).', schema: { list: 'ExecutionSummary' }, example: ex.list([ex.executionSummary(ex.execution)]) } } },
  { method: 'get', path: '/v1/executions/:id', tag: 'Executions', auth: 'api', summary: 'Get an execution with its attempts and step executions', success: { 200: { description: 'The execution.', schema: 'Execution', example: ex.execution } } },
  { method: 'post', path: '/v1/executions/:id/replay', tag: 'Executions', auth: 'api', summary: 'Replay an execution (source replay)', success: { 202: { ...queued, example: { ...ex.queuedExecution, source: 'replay' } } } },
  {
    method: 'post', path: '/v1/executions/:id/park', tag: 'Executions', auth: 'api', summary: 'Park an execution',
    success: { 200: { description: 'Parked (waiting, reason manual).', schema: 'Execution', example: { ...ex.queuedExecution, status: 'waiting', waiting_reason: 'manual' } }, 202: { description: 'Running: it parks after its current attempt or step.', schema: 'Execution', example: { ...ex.queuedExecution, status: 'running' } } },
    errors: ['invalid_state'],
  },
  { method: 'post', path: '/v1/executions/:id/resume', tag: 'Executions', auth: 'api', summary: 'Resume a waiting execution', success: { 200: { description: 'The execution, queued again.', schema: 'Execution', example: ex.queuedExecution } }, errors: ['invalid_state'] },
  { method: 'get', path: '/v1/executions/:id/notifications', tag: 'Notifications', auth: 'api', summary: "List an execution's deliveries", query: s.deliveryList, success: { 200: { description: 'A page of deliveries.', schema: { list: 'Delivery' }, example: ex.list([ex.delivery]) } } },
];

const fires: Operation[] = [
  {
    method: 'get', path: '/v1/fires', tag: 'Fires', auth: 'api', summary: "List the workspace's expected fires (the fire ledger)",
    description: "Like a job's fires, across the workspace's jobs, each with its `job_id` and `job_name`; `job_id` narrows it to one job.",
    query: s.fireList,
    success: { 200: { description: 'A page of fires.', schema: { list: 'WorkspaceFire' }, example: ex.list(ex.workspaceFires) } },
  },
];

const dlq: Operation[] = [
  { method: 'get', path: '/v1/dlq', tag: 'Dead letters', auth: 'api', summary: 'List dead-lettered executions', query: s.executionList, success: { 200: { description: 'A page of executions, without trigger_input, final_response and final_output (GET /v1/executions/:id has them).', schema: { list: 'ExecutionSummary' }, example: ex.list([ex.executionSummary(ex.failedExecution)]) } } },
  { method: 'get', path: '/v1/dlq/stats', tag: 'Dead letters', auth: 'api', summary: 'Count the DLQ by job and error class', success: { 200: { description: 'The counts.', schema: 'DlqStats', example: ex.dlqStats } } },
  {
    method: 'post', path: '/v1/dlq/replay-batch', tag: 'Dead letters', auth: 'api', summary: 'Replay up to 100 dead letters, by id or by job',
    body: { schema: s.dlqReplayBatch, required: true, example: { ids: [ex.failedExecution.id] } },
    success: { 200: { description: 'What was replayed and what was not.', schema: 'ReplayBatchResult', example: ex.replayBatch } },
  },
  {
    method: 'post', path: '/v1/dlq/purge', tag: 'Dead letters', auth: 'api', summary: 'Remove dead letters from the DLQ (their records stay)',
    body: { schema: s.dlqPurge, required: false, example: { job_id: ex.job.id, before: '2026-11-27T00:00:00.000Z' } },
    success: { 200: { description: 'How many left the DLQ.', schema: 'PurgeResult', example: ex.purged } },
  },
  { method: 'post', path: '/v1/dlq/:id/replay', tag: 'Dead letters', auth: 'api', summary: 'Replay a dead letter (source dlq_replay)', success: { 202: { ...queued, example: { ...ex.queuedExecution, source: 'dlq_replay', replay_of_id: ex.failedExecution.id } } } },
  { method: 'delete', path: '/v1/dlq/:id', tag: 'Dead letters', auth: 'api', summary: 'Remove a dead letter from the DLQ (its record stays)', success: { 204: deleted } },
];

const secrets: Operation[] = [
  {
    method: 'post', path: '/v1/secrets', tag: 'Secrets', auth: 'api', summary: 'Create a secret',
    body: { schema: s.secretCreate, required: true, example: { name: 'reports_token', value: 's3cr3t-value' } },
    success: { 201: { description: 'The secret, without its value.', schema: 'Secret', example: ex.secret } },
    errors: ['conflict'],
  },
  { method: 'get', path: '/v1/secrets', tag: 'Secrets', auth: 'api', summary: 'List secrets (names only)', query: s.pageList, success: { 200: { description: 'A page of secrets.', schema: { list: 'Secret' }, example: ex.list([ex.secret]) } } },
  { method: 'get', path: '/v1/secrets/:id', tag: 'Secrets', auth: 'api', summary: 'Get a secret (never its value)', success: { 200: { description: 'The secret.', schema: 'Secret', example: ex.secret } } },
  {
    method: 'patch', path: '/v1/secrets/:id', tag: 'Secrets', auth: 'api', summary: "Set a secret's value",
    body: { schema: s.secretPatch, required: true, example: { value: 'n3w-s3cr3t' } },
    success: { 200: { description: 'The secret.', schema: 'Secret', example: ex.secret } },
  },
  { method: 'delete', path: '/v1/secrets/:id', tag: 'Secrets', auth: 'api', summary: 'Delete a secret', success: { 204: deleted }, errors: ['secret_in_use'] },
  { method: 'get', path: '/v1/signing-key', tag: 'Secrets', auth: 'api', summary: "Get the workspace's request-signing key", success: { 200: { description: 'The key (Standard Webhooks, whsec_...).', schema: 'SigningKey', example: ex.signingKey } } },
  { method: 'post', path: '/v1/signing-key/rotate', tag: 'Secrets', auth: 'api', summary: 'Rotate the signing key (the old one also signs for 24 h)', success: { 200: { description: 'The new key.', schema: 'SigningKey', example: ex.signingKey } } },
];

const notifications: Operation[] = [
  { method: 'get', path: '/v1/notification-deliveries', tag: 'Notifications', auth: 'api', summary: 'List deliveries', query: s.deliveryList, success: { 200: { description: 'A page of deliveries.', schema: { list: 'Delivery' }, example: ex.list([ex.delivery]) } } },
  { method: 'post', path: '/v1/notification-deliveries/:id/retry', tag: 'Notifications', auth: 'api', summary: 'Retry a failed delivery (a new round of up to 5 attempts)', success: { 202: { description: 'The delivery, pending again.', schema: 'Delivery', example: { ...ex.delivery, status: 'pending', attempts: 0 } } }, errors: ['invalid_state'] },
  {
    method: 'post', path: '/v1/notification-channels', tag: 'Notifications', auth: 'api', summary: 'Create a notification channel',
    body: { schema: 'channelCreate', required: true, example: { name: 'ops webhook', type: 'webhook', config: { url: 'https://hooks.example.com/cron', signing_secret: 'whk-signing-secret' } } },
    success: { 201: { description: 'The channel; credentials are never returned, `configured_secrets` lists which are set.', schema: 'Channel', example: ex.channel } },
    errors: ['limit_exceeded'],
  },
  { method: 'get', path: '/v1/notification-channels', tag: 'Notifications', auth: 'api', summary: 'List channels', query: s.pageList, success: { 200: { description: 'A page of channels.', schema: { list: 'Channel' }, example: ex.list([ex.channel]) } } },
  { method: 'get', path: '/v1/notification-channels/:id', tag: 'Notifications', auth: 'api', summary: 'Get a channel', success: { 200: { description: 'The channel.', schema: 'Channel', example: ex.channel } } },
  {
    method: 'patch', path: '/v1/notification-channels/:id', tag: 'Notifications', auth: 'api', summary: 'Change a channel',
    description: '`config` merges one level deep; credentials left out stay as they are.',
    body: { schema: 'channelPatch', required: true, example: { name: 'ops webhook (eu)' } },
    success: { 200: { description: 'The channel.', schema: 'Channel', example: ex.channel } },
  },
  { method: 'delete', path: '/v1/notification-channels/:id', tag: 'Notifications', auth: 'api', summary: 'Delete a channel and its rules', success: { 204: deleted } },
  { method: 'post', path: '/v1/notification-channels/:id/test', tag: 'Notifications', auth: 'api', summary: 'Send a test message through a channel', success: { 200: { description: '`ok: true`, or `ok: false` with the error, either way.', schema: 'ChannelTestResult', example: ex.channelTest } } },
];

const monitors: Operation[] = [
  {
    method: 'post', path: '/v1/monitors', tag: 'Monitors', auth: 'api', summary: 'Create a heartbeat monitor',
    description: 'Either `expected_interval_sec` or `schedule: {cron}` (5 fields, UTC), not both.',
    body: { schema: s.monitorCreate, required: true, example: { name: 'backup script', schedule: { cron: '0 3 * * *' }, grace_sec: 600, max_duration_sec: 3_600 } },
    success: { 201: { description: 'The monitor with its ping URL.', schema: 'Monitor', example: { ...ex.monitor, expected_interval_sec: null, schedule: { cron: '0 3 * * *' }, state: 'new', last_ping_at: null, next_expected_at: null, next_due_at: null, last_duration_ms: null } } },
  },
  { method: 'get', path: '/v1/monitors', tag: 'Monitors', auth: 'api', summary: 'List monitors', query: s.monitorList, success: { 200: { description: 'A page of monitors.', schema: { list: 'Monitor' }, example: ex.list([ex.monitor]) } } },
  { method: 'get', path: '/v1/monitors/:id', tag: 'Monitors', auth: 'api', summary: 'Get a monitor', success: { 200: { description: 'The monitor.', schema: 'Monitor', example: ex.monitor } } },
  {
    method: 'patch', path: '/v1/monitors/:id', tag: 'Monitors', auth: 'api', summary: 'Change a monitor',
    body: { schema: s.monitorPatch, required: true, example: { grace_sec: 900 } },
    success: { 200: { description: 'The monitor.', schema: 'Monitor', example: ex.monitor } },
  },
  { method: 'delete', path: '/v1/monitors/:id', tag: 'Monitors', auth: 'api', summary: 'Delete a monitor', success: { 204: deleted } },
  { method: 'post', path: '/v1/monitors/:id/pause', tag: 'Monitors', auth: 'api', summary: 'Pause a monitor', success: { 200: { description: 'The paused monitor.', schema: 'Monitor', example: { ...ex.monitor, state: 'paused' } } }, errors: ['invalid_state'] },
  { method: 'post', path: '/v1/monitors/:id/resume', tag: 'Monitors', auth: 'api', summary: 'Resume a monitor', success: { 200: { description: 'The monitor, new or up with its window restarted.', schema: 'Monitor', example: ex.monitor } }, errors: ['invalid_state'] },
  {
    method: 'get', path: '/v1/monitors/:id/pings', tag: 'Monitors', auth: 'api', summary: "List a monitor's pings, newest first (the last 1,000 are kept)", query: s.monitorPingList,
    success: { 200: { description: 'A page of pings.', schema: { list: 'MonitorPing' }, example: ex.list([ex.monitorPing]) } },
  },
  { method: 'get', path: '/v1/monitors/:id/notification-rules', tag: 'Notifications', auth: 'api', summary: "List a monitor's notification rules", query: s.pageList, success: { 200: { description: 'A page of rules.', schema: { list: 'Rule' }, example: ex.list([{ ...ex.rule, event: 'on_down', job_id: null, monitor_id: ex.monitor.id }]) } } },
  {
    method: 'post', path: '/v1/monitors/:id/notification-rules', tag: 'Notifications', auth: 'api', summary: 'Add a notification rule to a monitor',
    body: { schema: s.monitorRuleCreate, required: true, example: { channel_id: ex.channel.id, event: 'on_down' } },
    success: { 201: { description: 'The rule.', schema: 'Rule', example: { ...ex.rule, event: 'on_down', job_id: null, monitor_id: ex.monitor.id } } },
    errors: ['conflict'],
  },
  { method: 'post', path: '/v1/monitors/:id/badge/rotate', tag: 'Monitors', auth: 'api', summary: "Give a monitor's badge a new URL (the old one stops answering)", success: { 200: { description: 'The monitor, with its new badge_url.', schema: 'Monitor', example: ex.monitor } } },
  { method: 'delete', path: '/v1/monitors/:id/notification-rules/:rule_id', tag: 'Notifications', auth: 'api', summary: "Remove a monitor's notification rule", success: { 204: deleted } },
  // Any rule, of a job or a monitor: its alert state, snooze and unsnooze.
  {
    method: 'get', path: '/v1/notification-rules/:id', tag: 'Notifications', auth: 'api', summary: 'Get a notification rule with its snooze state and held-back count',
    success: { 200: { description: 'The rule.', schema: 'Rule', example: { ...ex.rule, last_delivered_at: ex.rule.created_at, held_back: 2 } } },
  },
  {
    method: 'post', path: '/v1/notification-rules/:id/snooze', tag: 'Notifications', auth: 'api', summary: 'Snooze a rule: it delivers nothing for this many minutes',
    body: { schema: s.ruleSnooze, required: true, example: { minutes: 60 } },
    success: { 200: { description: 'The rule, snoozed.', schema: 'Rule', example: { ...ex.rule, snoozed_until: '2030-01-01T01:00:00.000Z' } } },
  },
  { method: 'post', path: '/v1/notification-rules/:id/unsnooze', tag: 'Notifications', auth: 'api', summary: 'End a rule\'s snooze', success: { 200: { description: 'The rule.', schema: 'Rule', example: ex.rule } } },
];

/** GET and POST of one ping kind; a POST body's first 10 KiB are kept with the ping (up to 100 KiB is read). */
function pingOperations(path: string, summary: string, errors: ErrorCode[] = []): Operation[] {
  const success = { 200: { description: 'Recorded.', schema: 'PingResult' as const, example: ex.pinged } };
  return [
    { method: 'get', path, tag: 'Public', auth: 'token', summary, success, errors },
    { method: 'post', path, tag: 'Public', auth: 'token', summary: `${summary} (a body up to 100 KiB; its first 10 KiB are kept)`, body: { schema: 'any', required: false }, success, errors },
  ];
}

const publicEndpoints: Operation[] = [
  ...pingOperations('/v1/ping/:token', 'Ping a monitor: a success'),
  ...pingOperations('/v1/ping/:token/start', 'Tell a monitor a run started (the next success or fail measures its duration)'),
  ...pingOperations('/v1/ping/:token/fail', 'Tell a monitor a run failed: down at once'),
  ...pingOperations('/v1/ping/:token/:exit_status', 'Ping a monitor with an exit status: 0 a success, 1..255 a fail', ['validation_failed']),
  {
    method: 'post', path: '/v1/triggers/:token', tag: 'Public', auth: 'token', summary: 'Start a webhook_trigger job',
    description: 'The same answer for known and unknown tokens. When the job has a secret, `X-Webhook-Secret` must match it (401 otherwise). The request becomes the execution\'s `trigger_input`.',
    headers: [{ name: 'X-Webhook-Secret', description: "The job's shared secret, when it has one." }],
    body: { schema: 'any', required: false, example: { event: 'deploy', version: '2.4' } },
    success: { 200: { description: 'Received.', schema: 'TriggerResult', example: ex.received } },
  },
  {
    method: 'post', path: '/v1/resume/:token', tag: 'Public', auth: 'token', summary: 'Resume a wait_for_webhook step (once)',
    body: { schema: 'any', required: false, description: "The step's input.", example: { approved_build: 812 } },
    success: { 200: { description: 'Resumed.', schema: 'ResumeResult', example: ex.resumed } },
  },
  {
    method: 'get', path: '/v1/approvals/:token', tag: 'Public', auth: 'token', summary: 'Read an approval',
    description: 'JSON, or the review page (HTML with Approve and Reject buttons) when the client accepts text/html.',
    success: { 200: { description: 'The approval.', schema: 'Approval', example: ex.approval } },
  },
  {
    method: 'get', path: '/v1/badges/:token', tag: 'Public', auth: 'token', summary: "A job's or monitor's status badge",
    description:
      "`:token` is the badge token followed by `.svg` (an SVG image: the name and `passing`, `failing`, `late`, `paused`, `up`, `down` or `new`) or `.json` (the same as a shields.io endpoint object). `Cache-Control: public, max-age=30`. The URL is each job's and monitor's `badge_url`.",
    success: { 200: { description: 'The badge.', schema: 'ShieldsEndpoint', example: ex.shields, otherMedia: { 'image/svg+xml': 'The badge as an image, for a token ending `.svg`.' } } },
  },
  { method: 'post', path: '/v1/approvals/:token/approve', tag: 'Public', auth: 'token', summary: 'Approve', body: { schema: 'decision', required: false }, success: { 200: { description: 'Decided.', schema: 'ApprovalDecisionResult', example: ex.decision } }, errors: ['already_decided'] },
  {
    method: 'get', path: '/v1/snooze/:token', tag: 'Public', auth: 'token', summary: "A snooze link's confirmation page (never snoozes)",
    description: 'An HTML page with Snooze buttons that POST to this same link when the client accepts text/html, else what the link would snooze; link scanners that follow it snooze nothing.',
    success: { 200: { description: 'What the link snoozes.', schema: 'SnoozeLink', example: { event: 'on_failure', job_id: ex.job.id, monitor_id: null, name: ex.job.name, snoozed_until: null } } },
  },
  {
    method: 'post', path: '/v1/snooze/:token', tag: 'Public', auth: 'token', summary: "Snooze a failure's or monitor-down message's rule",
    description: 'The `snooze_url` of a delivery (valid 7 days) snoozes its rule for `minutes` (default 60).',
    query: s.snoozeLinkQuery,
    body: { schema: 'any', required: false },
    success: { 200: { description: 'Snoozed.', schema: 'SnoozeLinkResult', example: { snoozed_until: '2030-01-01T01:00:00.000Z' } } },
  },
  { method: 'post', path: '/v1/approvals/:token/reject', tag: 'Public', auth: 'token', summary: 'Reject', body: { schema: 'decision', required: false }, success: { 200: { description: 'Decided.', schema: 'ApprovalDecisionResult', example: { ...ex.decision, status: 'rejected' } } }, errors: ['already_decided'] },
];

const tokenBody = { name: 'dashboard', scope: 'read', expires_at: '2027-06-01T00:00:00.000Z' };
const hostLimit = { description: "The host's limits and cool-down.", schema: 'HostLimit', example: ex.hostLimit };
const hostLimits: Operation[] = [
  { method: 'get', path: '/v1/host-limits', tag: 'Host limits', auth: 'api', summary: 'List hosts with limits or a cool-down running', query: s.hostLimitList, success: { 200: { description: 'A page of host limits, by host name.', schema: { list: 'HostLimit' }, example: ex.list([ex.hostLimit]) } } },
  { method: 'get', path: '/v1/host-limits/:host', tag: 'Host limits', auth: 'api', summary: "Get a host's limits and cool-down", success: { 200: hostLimit } },
  {
    method: 'put', path: '/v1/host-limits/:host', tag: 'Host limits', auth: 'api', summary: "Set a host's limits (the URL's host name, lower-case, without port)",
    description: 'Replaces both limits: one left out is none. A running cool-down stays.',
    body: { schema: s.hostLimitPut, required: true, example: { max_concurrency: 5, max_per_second: 20 } },
    success: { 201: { ...hostLimit, description: 'The host had no limits: they are set.' }, 200: { ...hostLimit, description: "The host's limits are replaced." } },
  },
  { method: 'delete', path: '/v1/host-limits/:host', tag: 'Host limits', auth: 'api', summary: "Remove a host's limits and any cool-down", success: { 204: deleted } },
];

const admin: Operation[] = [
  {
    method: 'post', path: '/admin/v1/workspaces', tag: 'Admin', auth: 'admin', summary: 'Create a workspace with its first API token',
    body: { schema: s.workspaceCreate, required: true, example: { name: 'acme' } },
    success: { 201: { description: 'The workspace and its API token, shown this once.', schema: 'WorkspaceCreated', example: ex.workspace } },
  },
  { method: 'post', path: '/admin/v1/workspaces/:id/tokens', tag: 'Admin', auth: 'admin', summary: 'Create another API token for a workspace', body: { schema: s.tokenCreate, required: false, example: tokenBody }, success: { 201: { description: 'The token, shown this once.', schema: 'ApiTokenCreated', example: ex.apiToken } } },
  { method: 'delete', path: '/admin/v1/tokens/:id', tag: 'Admin', auth: 'admin', summary: 'Revoke an API token', success: { 204: deleted } },
];

const access: Operation[] = [
  {
    method: 'post', path: '/v1/tokens', tag: 'Access', auth: 'api', summary: 'Create an API token of this workspace',
    description: '`scope` is `full` (the default), `run` (every GET, and run-now, replay, DLQ replay, park, resume, job and monitor pause and resume) or `read` (every GET). The token is in this answer only.',
    body: { schema: s.tokenCreate, required: false, example: tokenBody },
    success: { 201: { description: 'The token, shown this once.', schema: 'ApiTokenCreated', example: ex.apiToken } },
  },
  { method: 'get', path: '/v1/tokens', tag: 'Access', auth: 'api', summary: "List the workspace's API tokens (never the tokens themselves)", query: s.pageList, success: { 200: { description: 'A page of tokens, newest first.', schema: { list: 'ApiToken' }, example: ex.list([ex.apiTokenItem]) } } },
  { method: 'delete', path: '/v1/tokens/:id', tag: 'Access', auth: 'api', summary: 'Delete an API token (refused at once; its console sessions end)', success: { 204: deleted } },
  {
    method: 'get', path: '/v1/audit-events', tag: 'Access', auth: 'api', summary: 'List the audit log',
    description: 'Every change made in the workspace through the API, the console, the CLI, the admin API and the public approval links, newest first. `from` and `to` bound `created_at`. Names of the fields changed, never their values.',
    query: s.auditEventList,
    success: { 200: { description: 'A page of events.', schema: { list: 'AuditEvent' }, example: ex.list([ex.auditEvent]) } },
  },
];

const reference: Operation[] = [
  { method: 'get', path: '/v1/openapi.json', tag: 'Reference', auth: 'none', summary: 'This document', success: { 200: { description: 'The OpenAPI 3.1 document of the API.' } } },
];

const tags: Operation[] = [
  { method: 'get', path: '/v1/tags', tag: 'Tags', auth: 'api', summary: 'List the tags of the workspace\'s jobs', success: { 200: { description: 'Every tag, sorted, with how many jobs carry it.', schema: 'TagList', example: ex.tagList } } },
  { method: 'post', path: '/v1/tags/:tag/pause', tag: 'Tags', auth: 'api', summary: 'Pause every active job with a tag', success: { 200: { description: 'How many jobs were paused; jobs not active are left as they are.', schema: 'TagChange', example: { tag: 'billing', changed: 12 } } } },
  { method: 'post', path: '/v1/tags/:tag/resume', tag: 'Tags', auth: 'api', summary: 'Resume every paused job with a tag', success: { 200: { description: 'How many jobs were resumed, each next run computed from now; jobs not paused are left as they are.', schema: 'TagChange', example: { tag: 'billing', changed: 12 } } } },
];

export const OPERATIONS: Operation[] = [...jobs, ...tags, ...executions, ...fires, ...dlq, ...secrets, ...notifications, ...monitors, ...hostLimits, ...access, ...publicEndpoints, ...admin, ...reference];
