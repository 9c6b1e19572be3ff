import { FIRE_OUTCOMES, SCHEDULED_KINDS, type Fire, type FireOutcome, type FireSkipReason, type WorkspaceFire } from '@cronsvc/contracts';
import Joi from 'joi';
import { AppError } from '../errors/app-error.js';
import type { Deps } from '../deps/deps.js';
import { pagingKeys, type Page } from '../lists/paging.js';
import { validate } from '../validation/validate.js';
import { lagMs } from './fire-outcome.js';

const filters = {
  outcome: Joi.string().valid(...FIRE_OUTCOMES),
  from: Joi.date().iso(),
  to: Joi.date().iso(),
  ...pagingKeys,
};
export const jobQuerySchema = Joi.object(filters);
export const workspaceQuerySchema = Joi.object({ ...filters, job_id: Joi.string().max(100) });

interface FireQuery {
  outcome?: FireOutcome;
  from?: Date;
  to?: Date;
  job_id?: string;
  limit: number;
  offset: number;
}

interface LedgerRow {
  job_id: string;
  job_name: string;
  scheduled_for: Date;
  due_at: Date;
  outcome: FireOutcome;
  execution_id: string | null;
  fired_at: Date | null;
  reason: FireSkipReason | null;
}

// The ledger (docs/adr/021-fire-ledger.md): slots that got an execution (a schedule fire; manual
// runs have no fire key, one_time jobs' executions are left out) with their outcome read from
// started_at and the due time, and the recorded gaps. Parameters: $1 workspace, $2 job or null,
// $3 from, $4 to, $5 FIRE_LATE_AFTER in ms, $6 outcome or null. Sent unnamed, so Postgres plans
// it for the filters actually given. executedFireOutcome (fire-outcome.ts) says the same in TypeScript.
const EXECUTED_OUTCOME = `
  CASE WHEN e.started_at IS NULL THEN 'pending'
       WHEN e.caught_up THEN 'caught_up'
       WHEN e.started_at - e.scheduled_for - COALESCE(e.jitter_ms, 0) * interval '1 millisecond' <= $5::int * interval '1 millisecond' THEN 'fired'
       ELSE 'late' END`;

const EXECUTED_WHERE = `
  e.workspace_id = $1 AND e.fire_key IS NOT NULL
  AND e.job_id NOT IN (SELECT id FROM jobs WHERE workspace_id = $1 AND kind = 'one_time')
  AND ($2::text IS NULL OR e.job_id = $2) AND ($3::timestamptz IS NULL OR e.scheduled_for >= $3) AND ($4::timestamptz IS NULL OR e.scheduled_for <= $4)
  AND ($6::text IS NULL OR ${EXECUTED_OUTCOME} = $6)`;

const GAP_WHERE = `
  g.workspace_id = $1
  AND ($2::text IS NULL OR g.job_id = $2) AND ($3::timestamptz IS NULL OR g.scheduled_for >= $3) AND ($4::timestamptz IS NULL OR g.scheduled_for <= $4)
  AND ($6::text IS NULL OR g.outcome = $6)`;

// A slot that is due but has no execution yet because the scheduler has not reached it (it is
// stopped or behind: what the readiness check watches) is pending too, due at the slot itself
// until the scheduler draws its jitter.
const OVERDUE_WHERE = `
  j.workspace_id = $1 AND j.next_run_at <= now() AND j.kind IN (${SCHEDULED_KINDS.map((k) => `'${k}'`).join(', ')})
  AND ($2::text IS NULL OR j.id = $2) AND ($3::timestamptz IS NULL OR j.next_run_at >= $3) AND ($4::timestamptz IS NULL OR j.next_run_at <= $4)
  AND ($6::text IS NULL OR $6 = 'pending')`;

// A page: each side yields its first offset + limit rows in order (an index scan newest first
// that stops early), and only those are merged, paged and joined to their jobs' names.
const PAGE_SQL = `
  WITH page AS (
    (SELECT e.job_id, e.scheduled_for, e.scheduled_for + COALESCE(e.jitter_ms, 0) * interval '1 millisecond' AS due_at, ${EXECUTED_OUTCOME} AS outcome,
            e.id AS execution_id, e.started_at AS fired_at, NULL::text AS reason
       FROM executions AS e WHERE ${EXECUTED_WHERE}
      ORDER BY e.scheduled_for DESC, e.job_id LIMIT $7::int + $8::int)
    UNION ALL
    (SELECT g.job_id, g.scheduled_for, g.due_at, g.outcome, g.execution_id, NULL, g.reason
       FROM fire_gaps AS g WHERE ${GAP_WHERE}
      ORDER BY g.scheduled_for DESC, g.job_id LIMIT $7::int + $8::int)
    UNION ALL
    (SELECT j.id, j.next_run_at, j.next_run_at, 'pending', NULL, NULL, NULL
       FROM jobs AS j WHERE ${OVERDUE_WHERE}
      ORDER BY j.next_run_at DESC, j.id LIMIT $7::int + $8::int)
  )
  SELECT p.*, j.name AS job_name FROM page AS p JOIN jobs AS j ON j.id = p.job_id
   ORDER BY p.scheduled_for DESC, p.job_id
   LIMIT $7 OFFSET $8`;

const COUNT_SQL = `
  SELECT (SELECT count(*) FROM executions AS e WHERE ${EXECUTED_WHERE})::int + (SELECT count(*) FROM fire_gaps AS g WHERE ${GAP_WHERE})::int
       + (SELECT count(*) FROM jobs AS j WHERE ${OVERDUE_WHERE})::int AS total`;

export type LedgerFire = WorkspaceFire;

async function ledgerPage(deps: Pick<Deps, 'pool' | 'config'>, workspaceId: string, jobId: string | null, q: FireQuery): Promise<Page<LedgerFire>> {
  if (q.from && q.to && q.from > q.to) throw AppError.validation([{ path: 'from', message: 'must not be after to' }]);
  const base = [workspaceId, jobId, q.from ?? null, q.to ?? null, deps.config.fireLateAfterMs, q.outcome ?? null];
  const [page, count] = await Promise.all([
    deps.pool.query<LedgerRow>(PAGE_SQL, [...base, q.limit, q.offset]),
    deps.pool.query<{ total: number }>(COUNT_SQL, base),
  ]);
  return { data: page.rows.map(toFire), total: count.rows[0]?.total ?? 0, limit: q.limit, offset: q.offset };
}

function toFire(row: LedgerRow): LedgerFire {
  return {
    job_id: row.job_id,
    job_name: row.job_name,
    scheduled_for: row.scheduled_for.toISOString(),
    due_at: row.due_at.toISOString(),
    outcome: row.outcome,
    execution_id: row.execution_id,
    fired_at: row.fired_at?.toISOString() ?? null,
    lag_ms: row.fired_at ? lagMs(row.due_at, row.fired_at) : null,
    reason: row.reason,
  };
}

/** A fire as GET /v1/jobs/:id/fires shows it: the job is the one asked for. */
export function jobFire(fire: LedgerFire): Fire {
  const { job_id: _job, job_name: _name, ...rest } = fire;
  return rest;
}

/** GET /v1/jobs/:id/fires: one job's expected fires, newest slot first (docs/JOBS.md, "The fire ledger"). The caller checks the job is the workspace's. */
export async function listJobFires(deps: Pick<Deps, 'pool' | 'config'>, workspaceId: string, jobId: string, query: unknown): Promise<Page<LedgerFire>> {
  return ledgerPage(deps, workspaceId, jobId, validate<FireQuery>(jobQuerySchema.prefs({ convert: true }), query));
}

/** GET /v1/fires: the workspace's expected fires, each with its job, newest slot first. */
export async function listFires(deps: Pick<Deps, 'pool' | 'config'>, workspaceId: string, query: unknown): Promise<Page<LedgerFire>> {
  const q = validate<FireQuery>(workspaceQuerySchema.prefs({ convert: true }), query);
  return ledgerPage(deps, workspaceId, q.job_id ?? null, q);
}

/** Missed slots per job since `since` (the console's jobs list shows the last 24 h), for the given jobs. */
export async function missedCounts(deps: Pick<Deps, 'pool'>, jobIds: readonly string[], since: Date): Promise<Map<string, number>> {
  if (jobIds.length === 0) return new Map();
  const { rows } = await deps.pool.query<{ job_id: string; missed: number }>(
    `SELECT job_id, count(*)::int AS missed FROM fire_gaps WHERE job_id = ANY($1::text[]) AND scheduled_for >= $2 AND outcome = 'missed' GROUP BY job_id`,
    [jobIds, since.toISOString()],
  );
  return new Map(rows.map((r) => [r.job_id, r.missed]));
}
