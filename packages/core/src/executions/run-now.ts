import type { Actor } from '../access/actor.js';
import type { ExecutionRow } from '../db/client.js';
import { columnArrays, unnestFrom, type Column } from '../db/columns.js';
import { GroupCommit } from '../db/group-commit.js';
import { perPool } from '../db/per-pool.js';
import { camelRow } from '../db/rows.js';
import { AppError } from '../errors/app-error.js';
import { newId } from '../ids/ids.js';
import { currentRequestId } from '../logging/log-context.js';
import type { Deps } from '../deps/deps.js';
import { enqueueCommitted, firstAttempt } from './create-executions.js';

interface ManualRun {
  executionId: string;
  jobId: string;
  workspaceId: string;
  at: Date;
  requestId: string | null;
  /** Who runs it: its `job.run_now` audit event commits in the same statement. */
  actor: Actor | null;
}

const COLUMNS: readonly Column<ManualRun>[] = [
  { name: 'id', type: 'text', value: (r) => r.executionId },
  { name: 'job_id', type: 'text', value: (r) => r.jobId },
  { name: 'workspace_id', type: 'text', value: (r) => r.workspaceId },
  { name: 'at', type: 'timestamptz', value: (r) => r.at },
  { name: 'request_id', type: 'text', value: (r) => r.requestId },
  { name: 'audit_id', type: 'text', value: (r) => (r.actor ? newId('aud') : null) },
  { name: 'audit_actor_type', type: 'text', value: (r) => r.actor?.kind ?? null },
  { name: 'audit_actor_token_id', type: 'text', value: (r) => r.actor?.tokenId ?? null },
  { name: 'audit_actor_name', type: 'text', value: (r) => r.actor?.name ?? null },
];

// The job is read and its execution written in one statement: a job of another workspace, or
// one that does not exist, gives no row.
const RUN_NOW_SQL = `
  WITH input AS (
    SELECT * FROM ${unnestFrom(COLUMNS, 'i')}
  ), run AS (
    INSERT INTO executions (id, workspace_id, job_id, job_name, status, source, scheduled_for, next_attempt_at, request_id, created_at, updated_at)
    SELECT i.id, j.workspace_id, j.id, j.name, 'queued', 'manual', i.at, i.at, i.request_id, i.at, i.at
      FROM input AS i
      JOIN jobs AS j ON j.id = i.job_id AND j.workspace_id = i.workspace_id
    RETURNING *
  ), audit AS (
    INSERT INTO audit_events (id, workspace_id, action, target_type, target_id, actor_type, actor_token_id, actor_name, request_id, created_at)
    SELECT i.audit_id, run.workspace_id, 'job.run_now', 'job', run.job_id, i.audit_actor_type, i.audit_actor_token_id, i.audit_actor_name, i.request_id, i.at
      FROM run JOIN input AS i ON i.id = run.id
     WHERE i.audit_id IS NOT NULL
  )
  SELECT * FROM run`;

// Run-now calls arriving together leave in one statement (one batcher per pool).
const batchers = perPool(
  (pool) =>
    new GroupCommit<ManualRun, ExecutionRow | null>(
      async (runs) => {
        const { rows } = await pool.query<Record<string, unknown>>({ name: 'run-now', text: RUN_NOW_SQL, values: columnArrays(COLUMNS, runs) });
        const byId = new Map(rows.map((r) => [r.id as string, r]));
        return runs.map((r) => {
          const row = byId.get(r.executionId);
          return row ? camelRow<ExecutionRow>(row) : null;
        });
      },
      { maxBatch: 500, maxInFlight: 2 },
    ),
);

/** A manual execution scheduled now; the job's own schedule is untouched (docs/EXECUTIONS.md). */
export async function runNow(deps: Pick<Deps, 'pool' | 'queues' | 'clock' | 'logger'>, workspaceId: string, jobId: string, actor?: Actor): Promise<ExecutionRow> {
  const execution = await batchers(deps.pool).add({
    executionId: newId('exe'), jobId, workspaceId, at: deps.clock.now(), requestId: currentRequestId() ?? null, actor: actor ?? null,
  });
  if (!execution) throw AppError.notFound('job');
  await enqueueCommitted(deps, [firstAttempt(execution)]);
  return execution;
}
