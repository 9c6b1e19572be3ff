import type { Db, SqlPool } from '../db/client.js';
import { GroupCommit } from '../db/group-commit.js';
import { perPool } from '../db/per-pool.js';
import type { RequestSpec, RetryPolicy } from '../jobs/job-schema.js';
import type { StoredSigningKeys } from '../signatures/signing-keys.js';
import type { ExecutionVariables } from './prepare-request.js';

export interface ClaimedExecution {
  id: string;
  workspaceId: string;
  jobId: string;
  jobName: string;
  jobKind: string;
  source: string;
  attemptCount: number;
  startedAt: Date;
  /** Rendered once, when the execution first started; every retry reuses them. */
  variables: ExecutionVariables;
  request: RequestSpec;
  retryPolicy: RetryPolicy;
  maxConcurrentExecutions: number;
  onSuccessUrl: string | null;
  onFailureUrl: string | null;
  /** The workspace's signing keys as stored, read with the claim to save a query per attempt. */
  signingKeys: StoredSigningKeys;
}

export type ClaimResult =
  | { claimed: ClaimedExecution }
  /** Not yet: its next attempt is later, another live worker holds it, or the job has no free slot. */
  | { retryAt: Date }
  /** Nothing to do: finished, waiting, deleted, or already taken past this attempt. */
  | { skip: string };

interface ClaimRow {
  id: string;
  workspace_id: string;
  job_id: string;
  job_name: string;
  kind: string;
  source: string;
  attempt_count: number;
  started_at: Date;
  variables: ExecutionVariables;
  request: RequestSpec;
  retry_policy: RetryPolicy;
  max_concurrent_executions: number;
  on_success_url: string | null;
  on_failure_url: string | null;
  signing_key: string;
  previous_signing_key: string | null;
  signing_key_rotated_at: Date | null;
}

// How long an execution held back by max_concurrent_executions waits before looking again,
// unless a finishing sibling wakes it first.
export const SLOT_RETRY_MS = 1_000;

function toClaimed(row: ClaimRow): ClaimedExecution {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    jobId: row.job_id,
    jobName: row.job_name,
    jobKind: row.kind,
    source: row.source,
    attemptCount: row.attempt_count,
    startedAt: row.started_at,
    variables: row.variables,
    request: row.request,
    retryPolicy: row.retry_policy,
    maxConcurrentExecutions: row.max_concurrent_executions,
    onSuccessUrl: row.on_success_url,
    onFailureUrl: row.on_failure_url,
    signingKeys: { signingKey: row.signing_key, previousSigningKey: row.previous_signing_key, signingKeyRotatedAt: row.signing_key_rotated_at },
  };
}

// The claiming UPDATE, for a batch of executions at once (each with its own time, lease and
// variables). With $5 (cap checked) false a queued execution starts only when its job has no
// concurrency cap, which keeps the common case to this one statement.
const CLAIM_SQL = `
    UPDATE executions AS e
       SET status = 'running', locked_until = v.locked_until, started_at = COALESCE(e.started_at, v.now), updated_at = v.now,
           variables = COALESCE(e.variables, v.variables)
      FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::jsonb[]) AS v(id, now, locked_until, variables),
           jobs AS j, workspaces AS w
     WHERE e.id = v.id AND j.id = e.job_id AND w.id = e.workspace_id
       AND e.next_attempt_at <= v.now
       AND ((e.status = 'queued' AND (j.max_concurrent_executions = 0 OR $5::boolean))
         OR (e.status = 'running' AND (e.locked_until IS NULL OR e.locked_until < v.now)))
    RETURNING e.id, e.workspace_id, e.job_id, e.job_name, e.source, e.attempt_count, e.started_at, e.variables,
              j.kind, j.request, j.retry_policy, j.max_concurrent_executions, j.on_success_url, j.on_failure_url,
              w.signing_key, w.previous_signing_key, w.signing_key_rotated_at`;

interface ClaimInput {
  executionId: string;
  now: Date;
  leaseMs: number;
  variables: ExecutionVariables;
}

function claimValues(items: ClaimInput[], capChecked: boolean): unknown[] {
  return [
    items.map((i) => i.executionId),
    items.map((i) => i.now.toISOString()),
    items.map((i) => new Date(i.now.getTime() + i.leaseMs).toISOString()),
    items.map((i) => JSON.stringify(i.variables)),
    capChecked,
  ];
}

/** Each item's claimed row, or null; an id asked twice in one batch is claimed by its first asker only. */
function rowsFor(items: ClaimInput[], rows: ClaimRow[]): (ClaimRow | null)[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return items.map((i) => {
    const row = byId.get(i.executionId) ?? null;
    byId.delete(i.executionId);
    return row;
  });
}

/**
 * Claims of concurrent attempts leave together, one UPDATE per batch (one batcher per pool): an
 * executor running fifty attempts at once makes a few round trips for their claims instead of fifty.
 */
const claims = perPool(
  (pool) =>
    new GroupCommit<ClaimInput, ClaimRow | null>(
      async (items) => {
        const { rows } = await pool.query<ClaimRow>({ name: 'claim-attempts', text: CLAIM_SQL, values: claimValues(items, false) });
        return rowsFor(items, rows);
      },
      { maxBatch: 500, maxInFlight: 2 },
    ),
);

/**
 * Starts a queued execution of a capped job if a slot is free. The job row lock makes
 * executors check and take slots of one job one at a time, so the cap holds across processes;
 * an execution between retries still counts as running and keeps its slot.
 */
async function claimCapped(db: Db, executionId: string, jobId: string, cap: number, now: Date, leaseMs: number, variables: ExecutionVariables) {
  return db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM jobs WHERE id = ${jobId} FOR UPDATE`;
    const [{ running }] = await tx.$queryRaw<{ running: number }[]>`
      SELECT count(*)::int AS running FROM executions WHERE job_id = ${jobId} AND finished_at IS NULL AND status = 'running'`;
    if (running >= cap) return null;
    const rows = await tx.$queryRawUnsafe<ClaimRow[]>(CLAIM_SQL, ...claimValues([{ executionId, now, leaseMs, variables }], true));
    return rows[0] ?? null;
  });
}

/**
 * Takes an execution for its next attempt: a queued one (within its job's concurrency cap),
 * or a running one whose worker's lease ran out (that worker died). The lease makes every
 * other worker wait. `variables` are stored only if the execution has none yet.
 */
export async function claimAttempt(
  deps: { db: Db; pool: SqlPool },
  executionId: string,
  now: Date,
  leaseMs: number,
  variables: ExecutionVariables,
): Promise<ClaimResult> {
  const { db } = deps;
  const row = await claims(deps.pool).add({ executionId, now, leaseMs, variables });
  if (row) return { claimed: toClaimed(row) };
  const current = await db.execution.findUnique({
    where: { id: executionId },
    select: { status: true, nextAttemptAt: true, lockedUntil: true, jobId: true, job: { select: { maxConcurrentExecutions: true } } },
  });
  if (!current) return { skip: 'execution no longer exists' };
  if (current.status !== 'queued' && current.status !== 'running') return { skip: `execution is ${current.status}` };
  if (current.nextAttemptAt > now) return { retryAt: current.nextAttemptAt };
  if (current.lockedUntil && current.lockedUntil >= now) return { retryAt: new Date(current.lockedUntil.getTime() + 1) };
  const cap = current.job.maxConcurrentExecutions;
  if (current.status === 'queued' && cap > 0) {
    const capped = await claimCapped(db, executionId, current.jobId, cap, now, leaseMs, variables);
    if (capped) return { claimed: toClaimed(capped) };
    return { retryAt: new Date(now.getTime() + SLOT_RETRY_MS * (0.8 + 0.4 * Math.random())) };
  }
  // It changed between the update and the read: look again shortly.
  return { retryAt: new Date(now.getTime() + 100) };
}

/** Keeps the lease alive while a long attempt runs, so nobody takes over a live worker's execution. */
export async function extendLease(db: Db, executionId: string, until: Date): Promise<void> {
  await db.execution.updateMany({ where: { id: executionId, status: 'running' }, data: { lockedUntil: until } });
}
