import type { Config } from '../config/config.js';
import type { Db, Prisma, SqlPool } from '../db/client.js';
import { columnArrays, paramAfter, unnestFrom, type Column } from '../db/columns.js';
import { GroupCommit } from '../db/group-commit.js';
import { perPool } from '../db/per-pool.js';
import { SCHEDULED_KINDS, type RequestSpec, type RetryPolicy } from '@cronsvc/contracts';
import { recordGaps } from '../fires/record-gaps.js';
import { observeFires } from '../metrics/observe.js';
import type { StoredSigningKeys } from '../signatures/signing-keys.js';
import type { ExecutionVariables } from './execution-variables.js';

export interface ClaimedExecution {
  id: string;
  workspaceId: string;
  jobId: string;
  jobName: string;
  jobKind: string;
  source: string;
  attemptCount: number;
  startedAt: Date;
  scheduledFor: Date;
  /** The API request that created the execution (its X-Request-Id); null for schedule fires. */
  requestId: string | null;
  /** Rendered once, when the execution first started; every retry reuses them. */
  variables: ExecutionVariables;
  request: RequestSpec;
  retryPolicy: RetryPolicy;
  maxConcurrentExecutions: number;
  /** The workspace's signing keys as stored, read with the claim to save a query per attempt. */
  signingKeys: StoredSigningKeys;
  /**
   * Written by this claim (one more than the last): renewing the lease and recording the attempt
   * require it, so a worker that lost the execution to another can do neither.
   */
  claimToken: number;
  /** Claims since the execution's last recording, this one included (see MAX_UNRECORDED_CLAIMS). */
  unrecordedClaims: number;
  /** A slot of the fire ledger (a schedule fire of a scheduled kind): its due time and whether it is a catch-up; null otherwise. */
  fire: { dueAt: Date; caughtUp: boolean } | null;
  /**
   * Requests its workspace may still start under WORKSPACE_MAX_IN_FLIGHT, as this claim left it
   * (docs/adr/022-fair-share-between-workspaces.md); null when the claim took none of its room (a
   * takeover) or there is no limit.
   */
  workspaceRoom: number | null;
  /** When the host gate first deferred this attempt (its wait is counted from then); null when it was not. */
  budgetWaitingSince: Date | null;
}

/**
 * An attempt claimed this many times without its outcome ever being stored (its record fails
 * every time, or the executor holding it dies every time) is not sent again: the execution ends
 * failed with RECORD_FAILED instead of being resent every lease period for ever.
 */
export const MAX_UNRECORDED_CLAIMS = 5;

/**
 * Held back by its workspace's fair share: WORKSPACE_MAX_IN_FLIGHT of its requests are in flight.
 * Nothing was claimed or written; it may start as soon as the workspace has room, and `retryAt`
 * is when to look again at the latest.
 */
export interface Deferral {
  deferred: 'workspace_in_flight';
  workspaceId: string;
  retryAt: Date;
}

export type ClaimResult =
  | { claimed: ClaimedExecution }
  /** Not yet: its next attempt is later, another live worker holds it, or the job has no free slot. */
  | { retryAt: Date }
  | Deferral
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
  scheduled_for: Date;
  request_id: string | null;
  variables: ExecutionVariables;
  request: RequestSpec;
  retry_policy: RetryPolicy;
  max_concurrent_executions: number;
  signing_key: string;
  previous_signing_key: string | null;
  signing_key_rotated_at: Date | null;
  claim_token: number;
  unrecorded_claims: number;
  fire_key: string | null;
  jitter_ms: number | null;
  caught_up: boolean | null;
  workspace_room: number | null;
  budget_waiting_since: Date | null;
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
    scheduledFor: row.scheduled_for,
    requestId: row.request_id,
    variables: row.variables,
    request: row.request,
    retryPolicy: row.retry_policy,
    maxConcurrentExecutions: row.max_concurrent_executions,
    signingKeys: { workspaceId: row.workspace_id, signingKey: row.signing_key, previousSigningKey: row.previous_signing_key, signingKeyRotatedAt: row.signing_key_rotated_at },
    claimToken: row.claim_token,
    unrecordedClaims: row.unrecorded_claims,
    fire:
      row.fire_key !== null && (SCHEDULED_KINDS as readonly string[]).includes(row.kind)
        ? { dueAt: new Date(row.scheduled_for.getTime() + (row.jitter_ms ?? 0)), caughtUp: row.caught_up === true }
        : null,
    workspaceRoom: row.workspace_room === null ? null : Number(row.workspace_room),
    budgetWaitingSince: row.budget_waiting_since,
  };
}

interface ClaimInput {
  executionId: string;
  now: Date;
  leaseMs: number;
  variables: ExecutionVariables;
  claimedBy: string | null;
  /** WORKSPACE_MAX_IN_FLIGHT of the claiming process; 0 for no limit. */
  maxInFlight: number;
}

const CLAIM_COLUMNS: readonly Column<ClaimInput>[] = [
  { name: 'id', type: 'text', value: (i) => i.executionId },
  { name: 'at', type: 'timestamptz', value: (i) => i.now },
  { name: 'lease_ms', type: 'int', value: (i) => i.leaseMs },
  { name: 'variables', type: 'jsonb', value: (i) => i.variables },
  { name: 'claimed_by', type: 'text', value: (i) => i.claimedBy },
  { name: 'max_in_flight', type: 'int', value: (i) => i.maxInFlight },
];

// The claiming UPDATE, for a batch of executions at once (each with its own time, lease and
// variables). With the last parameter (cap checked) false a queued execution starts only when its job has no
// concurrency cap, which keeps the common case to this one statement. Whether the execution is
// due and whether a lease has run out are judged on the database's clock (now()), and the lease
// is set on it, so executors whose clocks disagree still agree on who holds what (ADR 006);
// `at` (the executor's clock) only stamps started_at and updated_at. The claim names its worker
// (claimed_by), so that other executors end the lease early when that worker's heartbeat stops
// (reclaimExecutions).
//
// Fair share (docs/adr/022-fair-share-between-workspaces.md): a queued execution, or a running one
// without a lease (a retry, a claim handed back), needs room in its workspace; taking over an
// expired lease does not (it is counted already). workspace_room() (see its migration) makes the
// claims of each workspace that needs room take turns, and answers for each execution needing
// room what room its workspace has left if it starts (the batch's are ranked per workspace,
// soonest due first); those with room left >= 0 start, and each claimed row answers it. With no
// limit (0) nothing needs room, and the function takes no lock.
const CLAIM_SQL = `
    WITH v AS (SELECT * FROM ${unnestFrom(CLAIM_COLUMNS, 'v')}),
    room AS MATERIALIZED (SELECT * FROM workspace_room(ARRAY(SELECT id FROM v), ARRAY(SELECT max_in_flight FROM v), ${paramAfter(CLAIM_COLUMNS)}::boolean))
    UPDATE executions AS e
       SET status = 'running', locked_until = now() + v.lease_ms * interval '1 millisecond', claim_token = e.claim_token + 1,
           claimed_by = v.claimed_by, unrecorded_claims = e.unrecorded_claims + 1,
           started_at = COALESCE(e.started_at, v.at), updated_at = v.at, variables = COALESCE(e.variables, v.variables)
      FROM v LEFT JOIN room AS r ON r.id = v.id,
           jobs AS j, workspaces AS w
     WHERE e.id = v.id AND j.id = e.job_id AND w.id = e.workspace_id
       AND e.next_attempt_at <= now()
       AND ((e.status = 'queued' AND (j.max_concurrent_executions = 0 OR ${paramAfter(CLAIM_COLUMNS)}::boolean) AND (v.max_in_flight = 0 OR r.room_left >= 0))
         OR (e.status = 'running' AND e.locked_until IS NULL AND (v.max_in_flight = 0 OR r.room_left >= 0))
         OR (e.status = 'running' AND e.locked_until < now()))
    RETURNING e.id, e.workspace_id, e.job_id, e.job_name, e.source, e.attempt_count, e.started_at, e.scheduled_for, e.request_id, e.variables, e.claim_token,
              e.unrecorded_claims, e.fire_key, e.jitter_ms, e.caught_up, r.room_left AS workspace_room, e.budget_waiting_since,
              j.kind, j.request, j.retry_policy, j.max_concurrent_executions,
              w.signing_key, w.previous_signing_key, w.signing_key_rotated_at`;

function claimValues(items: ClaimInput[], capChecked: boolean): unknown[] {
  return [...columnArrays(CLAIM_COLUMNS, items), capChecked];
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
 * an execution between retries still counts as running and keeps its slot. Answers the claimed
 * row, or which limit held it back: the job's slots, or its workspace's fair share. A fire of a
 * job with overlap_policy skip that finds no free slot at its due time is not run: its execution
 * is deleted and the slot recorded skipped (docs/adr/021-fire-ledger.md), with its on_missed event.
 */
async function claimCapped(db: Db, input: ClaimInput, jobId: string, cap: number): Promise<ClaimRow | 'job' | 'workspace' | 'skipped'> {
  return db.$transaction(async (tx) => {
    const [job] = await tx.$queryRaw<{ overlap_policy: string; kind: string }[]>`SELECT overlap_policy, kind FROM jobs WHERE id = ${jobId} FOR UPDATE`;
    const [{ running }] = await tx.$queryRaw<{ running: number }[]>`
      SELECT count(*)::int AS running FROM executions WHERE job_id = ${jobId} AND finished_at IS NULL AND status = 'running'`;
    if (running >= cap) {
      const skippable = job?.overlap_policy === 'skip' && (SCHEDULED_KINDS as readonly string[]).includes(job.kind);
      return skippable && (await skipFire(tx, input.executionId, input.now)) ? 'skipped' : 'job';
    }
    const rows = await tx.$queryRawUnsafe<ClaimRow[]>(CLAIM_SQL, ...claimValues([input], true));
    return rows[0] ?? 'workspace';
  });
}

/** Deletes a fire that never started and records its slot skipped; false when it is no such fire. */
async function skipFire(tx: Prisma.TransactionClient, executionId: string, now: Date): Promise<boolean> {
  const [fire] = await tx.$queryRaw<{ job_id: string; workspace_id: string; scheduled_for: Date; jitter_ms: number | null }[]>`
    DELETE FROM executions
     WHERE id = ${executionId} AND fire_key IS NOT NULL AND status = 'queued' AND attempt_count = 0 AND started_at IS NULL
    RETURNING job_id, workspace_id, scheduled_for, jitter_ms`;
  if (!fire) return false;
  await recordGaps(tx, [{
    jobId: fire.job_id, workspaceId: fire.workspace_id, scheduledFor: fire.scheduled_for,
    dueAt: new Date(fire.scheduled_for.getTime() + (fire.jitter_ms ?? 0)), outcome: 'skipped', reason: 'overlap', executionId: null,
  }], now);
  // A scheduled job's one slot is over, run or not.
  await tx.$executeRaw`UPDATE jobs SET state = 'completed', updated_at = ${now} WHERE id = ${fire.job_id} AND kind = 'scheduled' AND state = 'active' AND next_run_at IS NULL`;
  return true;
}

interface CurrentRow {
  status: string;
  next_attempt_at: Date;
  locked_until: Date | null;
  job_id: string;
  workspace_id: string;
  max_concurrent_executions: number;
  in_flight: string;
  db_now: Date;
}

/** When an execution held back by a slot or by its workspace's share looks again at the latest, jittered. */
const slotRetry = (now: Date) => new Date(now.getTime() + SLOT_RETRY_MS * (0.8 + 0.4 * Math.random()));

/**
 * Takes an execution for its next attempt: a queued one (within its job's concurrency cap and its
 * workspace's fair share), or a running one whose worker's lease ran out (that worker died). The
 * lease makes every other worker wait. `variables` are stored only if the execution has none yet.
 * A "not yet" answers a time on the caller's clock, translated from the database's. The claim
 * names `deps.workerId`, whose heartbeat vouches for the lease
 * (docs/adr/018-liveness-based-reclaim.md). Without `deps.config` no fair share applies (tests of
 * the claim alone).
 */
export async function claimAttempt(
  deps: { db: Db; pool: SqlPool; workerId?: string; config?: Pick<Config, 'workspaceMaxInFlight'> },
  executionId: string,
  now: Date,
  leaseMs: number,
  variables: ExecutionVariables,
): Promise<ClaimResult> {
  const { db } = deps;
  const maxInFlight = deps.config?.workspaceMaxInFlight ?? 0;
  const input: ClaimInput = { executionId, now, leaseMs, variables, claimedBy: deps.workerId ?? null, maxInFlight };
  const row = await claims(deps.pool).add(input);
  if (row) return { claimed: toClaimed(row) };
  const [current] = await db.$queryRaw<CurrentRow[]>`
    SELECT e.status, e.next_attempt_at, e.locked_until, e.job_id, e.workspace_id, j.max_concurrent_executions, now() AS db_now,
           (SELECT COALESCE(sum(c.n), 0) FROM in_flight_counts AS c WHERE c.workspace_id = e.workspace_id)::text AS in_flight
      FROM executions AS e JOIN jobs AS j ON j.id = e.job_id WHERE e.id = ${executionId}`;
  if (!current) return { skip: 'execution no longer exists' };
  if (current.status !== 'queued' && current.status !== 'running') return { skip: `execution is ${current.status}` };
  const dbNow = current.db_now.getTime();
  const local = (at: number) => new Date(now.getTime() + (at - dbNow));
  if (current.next_attempt_at.getTime() > dbNow) return { retryAt: local(current.next_attempt_at.getTime()) };
  if (current.locked_until && current.locked_until.getTime() >= dbNow) return { retryAt: local(current.locked_until.getTime() + 1) };
  const deferral: Deferral = { deferred: 'workspace_in_flight', workspaceId: current.workspace_id, retryAt: slotRetry(now) };
  const cap = current.max_concurrent_executions;
  if (current.status === 'queued' && cap > 0) {
    const capped = await claimCapped(db, input, current.job_id, cap);
    if (capped === 'skipped') {
      observeFires('skipped');
      return { skip: 'fire skipped: overlap' };
    }
    if (capped === 'job') return { retryAt: slotRetry(now) };
    return capped === 'workspace' ? deferral : { claimed: toClaimed(capped) };
  }
  // Due and not leased, so it needed room: its workspace had none.
  if (!current.locked_until && maxInFlight > 0 && Number(current.in_flight) >= maxInFlight) return deferral;
  // It changed between the update and the read: look again shortly.
  return { retryAt: new Date(now.getTime() + 100) };
}

interface LeaseInput {
  executionId: string;
  claimToken: number;
  leaseMs: number;
}

const LEASE_COLUMNS: readonly Column<LeaseInput>[] = [
  { name: 'id', type: 'text', value: (i) => i.executionId },
  { name: 'claim_token', type: 'int', value: (i) => i.claimToken },
  { name: 'lease_ms', type: 'int', value: (i) => i.leaseMs },
];

const EXTEND_SQL = `
    UPDATE executions AS e SET locked_until = now() + v.lease_ms * interval '1 millisecond'
      FROM ${unnestFrom(LEASE_COLUMNS, 'v')}
     WHERE e.id = v.id AND e.status = 'running' AND e.claim_token = v.claim_token AND e.locked_until IS NOT NULL
    RETURNING e.id`;

// Renewals of attempts running at the same moment leave together, like claims.
const renewals = perPool(
  (pool) =>
    new GroupCommit<LeaseInput, boolean>(
      async (items) => {
        const { rows } = await pool.query<{ id: string }>({
          name: 'extend-leases',
          text: EXTEND_SQL,
          values: columnArrays(LEASE_COLUMNS, items),
        });
        const renewed = new Set(rows.map((r) => r.id));
        return items.map((i) => renewed.has(i.executionId));
      },
      { maxBatch: 500, maxInFlight: 2 },
    ),
);

/**
 * Keeps the lease alive while a long attempt runs, so nobody takes over a live worker's
 * execution: leaseMs more from now on the database's clock. Only the holder of the claim can
 * renew it; false when the execution was taken over (or finished, or parked) meanwhile, or the
 * claim was handed back (releaseClaims): a released lease stays released, so that another executor
 * can claim the execution at once and its workspace's in-flight count (fair share) goes down.
 */
export function extendLease(pool: SqlPool, executionId: string, claimToken: number, leaseMs: number): Promise<boolean> {
  return renewals(pool).add({ executionId, claimToken, leaseMs });
}

/** A claim to give back; with `deferMs`, given back by the host gate (docs/adr/026-a-gate-in-the-attempt-pipeline.md). */
export interface ClaimToRelease {
  executionId: string;
  claimToken: number;
  /** The gate deferred the attempt: it is due this long after now() and the claim does not count as unrecorded. */
  deferMs?: number;
}

const CLAIM_KEY_COLUMNS: readonly Column<ClaimToRelease>[] = [
  { name: 'id', type: 'text', value: (i) => i.executionId },
  { name: 'claim_token', type: 'int', value: (i) => i.claimToken },
  { name: 'defer_ms', type: 'int', value: (i) => (i.deferMs === undefined ? null : Math.max(0, Math.round(i.deferMs))) },
];

/**
 * Gives claims back before their attempts were recorded (an executor stopping past its grace
 * period): the lease ends now, so another executor can claim each execution at once. The claim
 * token stays, so this worker could still record an answer that arrives first; once another
 * claims it, it can no longer. A claim the host gate deferred is given back the same way, and
 * more: its next attempt is due after the deferral, the claim is not counted among the
 * unrecorded ones (nothing was sent, so nothing is spent), and the wait starts being counted.
 * Answers the ids released (those still held by these claims).
 */
export async function releaseClaims(pool: SqlPool, items: ClaimToRelease[]): Promise<string[]> {
  if (items.length === 0) return [];
  const { rows } = await pool.query<{ id: string }>(
    `UPDATE executions AS e SET locked_until = NULL,
            next_attempt_at = CASE WHEN v.defer_ms IS NULL THEN e.next_attempt_at ELSE now() + v.defer_ms * interval '1 millisecond' END,
            unrecorded_claims = CASE WHEN v.defer_ms IS NULL THEN e.unrecorded_claims ELSE greatest(e.unrecorded_claims - 1, 0) END,
            budget_waiting_since = CASE WHEN v.defer_ms IS NULL THEN e.budget_waiting_since ELSE COALESCE(e.budget_waiting_since, now()) END
       FROM ${unnestFrom(CLAIM_KEY_COLUMNS, 'v')}
      WHERE e.id = v.id AND e.status = 'running' AND e.claim_token = v.claim_token
     RETURNING e.id`,
    columnArrays(CLAIM_KEY_COLUMNS, items),
  );
  return rows.map((r) => r.id);
}
