import type { JobRow, Prisma, SqlPool } from '../db/client.js';
import { columnArrays, columnNames, unnestFrom, type Column } from '../db/columns.js';
import { GroupCommit } from '../db/group-commit.js';
import { perPool } from '../db/per-pool.js';
import { fireKey } from '../executions/create-executions.js';
import { currentRequestId } from '../logging/log-context.js';
import type { Actor } from '../access/actor.js';
import { newId } from '../ids/ids.js';

/** A job row as Postgres returns it (pg parses jsonb and timestamptz). */
export interface JobRecord {
  id: string;
  workspace_id: string;
  name: string;
  kind: string;
  state: string;
  schedule: Prisma.JsonValue | null;
  schedule_anchor: Date;
  request: Prisma.JsonValue | null;
  steps: Prisma.JsonValue | null;
  retry_policy: Prisma.JsonValue;
  next_run_at: Date | null;
  max_concurrent_executions: number;
  max_workflow_duration_seconds: number | null;
  on_success_url: string | null;
  on_failure_url: string | null;
  notification_override: string;
  idempotency_key: string | null;
  webhook_token: string | null;
  webhook_token_hash: string | null;
  webhook_secret_hash: string | null;
  overlap_policy: string;
  catch_up_policy: string;
  jitter_seconds: number;
  stored_bytes: number;
  summary: Prisma.JsonValue;
  badge_token: string;
  key: string | null;
  tags: Prisma.JsonValue;
  created_at: Date;
  updated_at: Date;
}

/** The execution a job fires as it is created (a one_time job): its id and due time. */
export interface FirstFire {
  executionId: string;
  scheduledFor: Date;
}

export interface NewJob {
  job: JobRow;
  fire: FirstFire | null;
  requestId: string | null;
  /** Who creates it: its `job.created` audit event commits in the same statement. */
  actor: Actor | null;
  changedFields: string[];
}

/** Every column of `jobs`; a test compares this list with the table. */
export const JOB_COLUMNS: readonly Column<JobRow>[] = [
  { name: 'id', type: 'text', value: (j) => j.id },
  { name: 'workspace_id', type: 'text', value: (j) => j.workspaceId },
  { name: 'name', type: 'text', value: (j) => j.name },
  { name: 'kind', type: 'text', value: (j) => j.kind },
  { name: 'state', type: 'text', value: (j) => j.state },
  { name: 'schedule', type: 'jsonb', value: (j) => j.schedule },
  { name: 'schedule_anchor', type: 'timestamptz', value: (j) => j.scheduleAnchor },
  { name: 'request', type: 'jsonb', value: (j) => j.request },
  { name: 'steps', type: 'jsonb', value: (j) => j.steps },
  { name: 'retry_policy', type: 'jsonb', value: (j) => j.retryPolicy },
  { name: 'next_run_at', type: 'timestamptz', value: (j) => j.nextRunAt },
  { name: 'max_concurrent_executions', type: 'int', value: (j) => j.maxConcurrentExecutions },
  { name: 'max_workflow_duration_seconds', type: 'int', value: (j) => j.maxWorkflowDurationSeconds },
  { name: 'on_success_url', type: 'text', value: (j) => j.onSuccessUrl },
  { name: 'on_failure_url', type: 'text', value: (j) => j.onFailureUrl },
  { name: 'notification_override', type: 'text', value: (j) => j.notificationOverride },
  { name: 'idempotency_key', type: 'text', value: (j) => j.idempotencyKey },
  { name: 'created_at', type: 'timestamptz', value: (j) => j.createdAt },
  { name: 'updated_at', type: 'timestamptz', value: (j) => j.updatedAt },
  { name: 'webhook_token', type: 'text', value: (j) => j.webhookToken },
  { name: 'webhook_token_hash', type: 'text', value: (j) => j.webhookTokenHash },
  { name: 'webhook_secret_hash', type: 'text', value: (j) => j.webhookSecretHash },
  { name: 'overlap_policy', type: 'text', value: (j) => j.overlapPolicy },
  { name: 'catch_up_policy', type: 'text', value: (j) => j.catchUpPolicy },
  { name: 'jitter_seconds', type: 'int', value: (j) => j.jitterSeconds },
  { name: 'stored_bytes', type: 'int', value: (j) => j.storedBytes },
  { name: 'summary', type: 'jsonb', value: (j) => j.summary },
  { name: 'badge_token', type: 'text', value: (j) => j.badgeToken },
  { name: 'key', type: 'text', value: (j) => j.key },
  { name: 'tags', type: 'jsonb', value: (j) => j.tags },
];

export const INPUT_COLUMNS: readonly Column<NewJob>[] = [
  ...JOB_COLUMNS.map((c): Column<NewJob> => ({ ...c, value: (n) => c.value(n.job) })),
  { name: 'fire_execution_id', type: 'text', value: (n) => n.fire?.executionId ?? null },
  { name: 'fire_scheduled_for', type: 'timestamptz', value: (n) => n.fire?.scheduledFor ?? null },
  { name: 'fire_key', type: 'text', value: (n) => (n.fire ? fireKey(n.job.id, n.fire.scheduledFor) : null) },
  { name: 'fire_request_id', type: 'text', value: (n) => n.requestId },
  { name: 'audit_id', type: 'text', value: (n) => (n.actor ? newId('aud') : null) },
  { name: 'audit_actor_type', type: 'text', value: (n) => n.actor?.kind ?? null },
  { name: 'audit_actor_token_id', type: 'text', value: (n) => n.actor?.tokenId ?? null },
  { name: 'audit_actor_name', type: 'text', value: (n) => n.actor?.name ?? null },
  { name: 'audit_fields', type: 'jsonb', value: (n) => n.changedFields },
];

// One statement for any number of new jobs, and for the first execution of those that fire as
// they are created, so a one_time job and its execution commit together in one round trip. A job
// whose Idempotency-Key or key is already used in its workspace (stored, or earlier in the same
// batch), or that would not fit in its workspace's stored bytes, is not inserted and returns no
// row, and neither is its execution: one such job never fails the others of its batch.
export const INSERT_JOBS_SQL = `
  WITH input AS (
    SELECT * FROM ${unnestFrom(INPUT_COLUMNS, 't')}
  ), job AS (
    INSERT INTO jobs (${columnNames(JOB_COLUMNS)})
    SELECT ${columnNames(JOB_COLUMNS)} FROM input WHERE within_stored_bytes(workspace_id, stored_bytes)
    ON CONFLICT DO NOTHING
    RETURNING *
  ), fire AS (
    INSERT INTO executions (id, workspace_id, job_id, job_name, status, source, scheduled_for, fire_key, next_attempt_at, request_id, created_at, updated_at)
    SELECT i.fire_execution_id, job.workspace_id, job.id, job.name, 'queued', 'schedule', i.fire_scheduled_for, i.fire_key,
           i.fire_scheduled_for, i.fire_request_id, job.created_at, job.created_at
      FROM job JOIN input AS i ON i.id = job.id
     WHERE i.fire_execution_id IS NOT NULL
  ), audit AS (
    INSERT INTO audit_events (id, workspace_id, action, target_type, target_id, actor_type, actor_token_id, actor_name, request_id, changed_fields, created_at)
    SELECT i.audit_id, job.workspace_id, 'job.created', 'job', job.id, i.audit_actor_type, i.audit_actor_token_id, i.audit_actor_name, i.fire_request_id,
           i.audit_fields, job.created_at
      FROM job JOIN input AS i ON i.id = job.id
     WHERE i.audit_id IS NOT NULL
  )
  SELECT * FROM job`;

export function jobFromRecord(r: JobRecord): JobRow {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    name: r.name,
    kind: r.kind,
    state: r.state,
    schedule: r.schedule,
    scheduleAnchor: r.schedule_anchor,
    request: r.request,
    steps: r.steps,
    retryPolicy: r.retry_policy,
    nextRunAt: r.next_run_at,
    maxConcurrentExecutions: r.max_concurrent_executions,
    maxWorkflowDurationSeconds: r.max_workflow_duration_seconds,
    onSuccessUrl: r.on_success_url,
    onFailureUrl: r.on_failure_url,
    notificationOverride: r.notification_override,
    idempotencyKey: r.idempotency_key,
    webhookToken: r.webhook_token,
    webhookTokenHash: r.webhook_token_hash,
    webhookSecretHash: r.webhook_secret_hash,
    overlapPolicy: r.overlap_policy,
    catchUpPolicy: r.catch_up_policy,
    jitterSeconds: r.jitter_seconds,
    storedBytes: r.stored_bytes,
    summary: r.summary,
    badgeToken: r.badge_token,
    key: r.key,
    tags: r.tags,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Each job as stored, or null for one whose Idempotency-Key was taken. */
function storedOrNull(jobs: NewJob[], records: JobRecord[]): (JobRow | null)[] {
  const byId = new Map(records.map((r) => [r.id, r]));
  return jobs.map(({ job }) => {
    const record = byId.get(job.id);
    return record ? jobFromRecord(record) : null;
  });
}

// Creates arriving together leave in one statement, a single-statement transaction: fifty
// concurrent POST /v1/jobs make a few round trips and commits instead of fifty.
const batchers = perPool(
  (pool) =>
    new GroupCommit<NewJob, JobRow | null>(
      async (jobs) =>
        storedOrNull(jobs, (await pool.query<JobRecord>({ name: 'insert-jobs', text: INSERT_JOBS_SQL, values: columnArrays(INPUT_COLUMNS, jobs) })).rows),
      { maxBatch: 500, maxInFlight: 2 },
    ),
);

/**
 * Stores a new job, with its first execution when it fires as it is created, and returns it as
 * stored; null when its Idempotency-Key is already taken in the workspace (the unique index
 * decides between concurrent requests), in which case no execution is stored either.
 */
export function insertJob(pool: SqlPool, job: JobRow, fire: FirstFire | null = null, audit?: { actor: Actor; changedFields: string[] }): Promise<JobRow | null> {
  return batchers(pool).add({ job, fire, requestId: currentRequestId() ?? null, actor: audit?.actor ?? null, changedFields: audit?.changedFields ?? [] });
}
