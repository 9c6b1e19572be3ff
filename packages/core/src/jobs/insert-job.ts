import type { JobRow, Prisma, SqlPool } from '../db/client.js';
import { GroupCommit } from '../db/group-commit.js';
import { perPool } from '../db/per-pool.js';

/** A job row as Postgres returns it (pg and Prisma's raw queries both parse jsonb and timestamptz). */
interface JobRecord {
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
  created_at: Date;
  updated_at: Date;
}

// One statement for any number of new jobs: each parameter is an array holding one column.
// A job whose Idempotency-Key is already used in its workspace (stored, or earlier in the same
// batch) is not inserted and returns no row, so a lost race needs no error handling.
const INSERT_JOBS_SQL = `
  INSERT INTO jobs (id, workspace_id, name, kind, state, schedule, schedule_anchor, request, steps, retry_policy, next_run_at,
    max_concurrent_executions, max_workflow_duration_seconds, on_success_url, on_failure_url, notification_override,
    idempotency_key, created_at, updated_at, webhook_token, webhook_token_hash, webhook_secret_hash)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::timestamptz[], $8::jsonb[],
    $9::jsonb[], $10::jsonb[], $11::timestamptz[], $12::int[], $13::int[], $14::text[], $15::text[], $16::text[], $17::text[],
    $18::timestamptz[], $19::timestamptz[], $20::text[], $21::text[], $22::text[])
  ON CONFLICT (workspace_id, idempotency_key) DO NOTHING
  RETURNING *`;

// JSON columns go as text: pg would turn a JS array into a Postgres array literal.
const jsonText = (value: Prisma.JsonValue | null) => (value === null ? null : JSON.stringify(value));

// The value of each column of INSERT_JOBS_SQL, in its order.
const COLUMN_VALUES: ((job: JobRow) => unknown)[] = [
  (j) => j.id, (j) => j.workspaceId, (j) => j.name, (j) => j.kind, (j) => j.state, (j) => jsonText(j.schedule),
  (j) => j.scheduleAnchor.toISOString(), (j) => jsonText(j.request), (j) => jsonText(j.steps), (j) => jsonText(j.retryPolicy),
  (j) => j.nextRunAt?.toISOString() ?? null, (j) => j.maxConcurrentExecutions, (j) => j.maxWorkflowDurationSeconds,
  (j) => j.onSuccessUrl, (j) => j.onFailureUrl, (j) => j.notificationOverride, (j) => j.idempotencyKey,
  (j) => j.createdAt.toISOString(), (j) => j.updatedAt.toISOString(), (j) => j.webhookToken, (j) => j.webhookTokenHash,
  (j) => j.webhookSecretHash,
];

const insertValues = (jobs: JobRow[]) => COLUMN_VALUES.map((value) => jobs.map(value));

function jobFromRecord(r: JobRecord): JobRow {
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
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Each job as stored, or null for one whose Idempotency-Key was taken. */
function storedOrNull(jobs: JobRow[], records: JobRecord[]): (JobRow | null)[] {
  const byId = new Map(records.map((r) => [r.id, r]));
  return jobs.map((job) => {
    const record = byId.get(job.id);
    return record ? jobFromRecord(record) : null;
  });
}

// Creates arriving together leave in one INSERT, a single-statement transaction: fifty
// concurrent POST /v1/jobs make a few round trips and commits instead of fifty.
const batchers = perPool(
  (pool) =>
    new GroupCommit<JobRow, JobRow | null>(
      async (jobs) => storedOrNull(jobs, (await pool.query<JobRecord>({ name: 'insert-jobs', text: INSERT_JOBS_SQL, values: insertValues(jobs) })).rows),
      { maxBatch: 500, maxInFlight: 2 },
    ),
);

/**
 * Stores a new job and returns it as stored, or null when its Idempotency-Key is already taken in
 * the workspace (the unique index decides between concurrent requests).
 */
export function insertJob(pool: SqlPool, job: JobRow): Promise<JobRow | null> {
  return batchers(pool).add(job);
}

/** insertJob inside a Prisma transaction, for a job whose first execution is committed with it. */
export async function insertJobIn(tx: Prisma.TransactionClient, job: JobRow): Promise<JobRow | null> {
  const records = await tx.$queryRawUnsafe<JobRecord[]>(INSERT_JOBS_SQL, ...insertValues([job]));
  return storedOrNull([job], records)[0];
}
