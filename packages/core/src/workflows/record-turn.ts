import type { AttemptRequest, AttemptStatus, AttemptTimings, ErrorClass } from '@cronsvc/contracts';
import type pg from 'pg';
import { inTransaction, SqlBuilder } from '../db/client.js';
import { jsonText as json } from '../db/columns.js';
import { newId } from '../ids/ids.js';
import type { Deps } from '../deps/deps.js';
import { writeApprovalRequired, type ApprovalRequiredEvent } from './approval-required.js';
import { executionEndedWrites } from './execution-ended.js';
import { changeContextIn, type ContextChanges } from './job-context.js';
import type { Run, StepRow } from './load-run.js';

/** A step attempt as stored: the fields of an execution's attempt. */
export interface StepAttemptWrite {
  number: number;
  status: AttemptStatus;
  /** The request as sent, secrets masked; null when none was sent. */
  request: AttemptRequest | null;
  statusCode: number | null;
  latencyMs: number;
  /** Per-phase timings; null or absent when no request was made. */
  timings?: AttemptTimings | null;
  bodyPreview: string | null;
  responseHeaders: Record<string, string> | null;
  errorClass: ErrorClass | null;
  errorMessage: string | null;
  startedAt: Date;
  /** How long the attempt waited for its host's budget or cool-down (ms). */
  budgetWaitMs?: number;
}

export interface FinalState {
  status: 'succeeded' | 'failed';
  errorClass: ErrorClass | null;
  errorMessage: string | null;
  /** The response that ended the run, when its last move was an HTTP attempt that got one; else the run's last response is used. */
  response?: { statusCode: number; bodyPreview: string | null } | null;
}

/** Everything one recording changes. */
export interface TurnRecord {
  /** The step index the execution is at afterwards. */
  index: number;
  context: Record<string, unknown>;
  /** The state the execution takes; a park asked for during the turn turns running and waiting into a manual park. */
  state:
    | { status: 'running'; leaseMs: number | null; nextAttemptAt: Date }
    | { status: 'waiting'; reason: 'webhook' | 'approval'; payload: Record<string, unknown>; expiresAt: Date }
    | { status: 'final'; final: FinalState };
  /** The current step's record, written whole (inserted the first time). */
  step?: Omit<StepRow, 'id' | 'decision' | 'decidedAt' | 'input'> & { id?: string };
  attempt?: StepAttemptWrite;
  storeChanges?: ContextChanges;
  approval?: ApprovalRequiredEvent;
}

export type Recorded =
  | { recorded: false }
  | { recorded: true; status: string; waitingReason: string | null };

/** The context store refused extract_to_context values; nothing of the recording was kept. */
export class ContextLimitError extends Error {}


/** The SET list of the execution's update: its turn, position and context, and the state it takes. */
function executionSets(b: SqlBuilder, run: Run, rec: TurnRecord, now: Date, lastResponse: FinalState['response']): string[] {
  const deadline = b.param(run.deadline);
  const sets = [
    `attempt_count = ${b.param(run.turn)}`,
    `updated_at = ${b.param(now)}`,
    `steps = COALESCE(e.steps, ${b.param(json(run.stepsToStore))}::jsonb)`,
    `deadline_at = COALESCE(e.deadline_at, ${deadline}::timestamptz)`,
    `context = ${b.param(json(rec.context))}::jsonb`,
    `step_index = ${b.param(rec.index)}`,
    'park_requested = false',
    'unrecorded_claims = 0',
    'budget_waiting_since = NULL',
  ];
  const { state } = rec;
  if (state.status === 'final') {
    const { final } = state;
    return [
      ...sets,
      `status = ${b.param(final.status)}`,
      'waiting_reason = NULL', 'waiting_payload = NULL', 'waiting_expires_at = NULL', 'locked_until = NULL',
      `finished_at = ${b.param(now)}`,
      `duration_ms = ${b.param(now.getTime() - run.exe.startedAt.getTime())}`,
      `final_response = ${b.param(json(lastResponse))}::jsonb`,
      `final_output = ${b.param(json(rec.context))}::jsonb`,
      `error_class = ${b.param(final.errorClass)}`,
      `error_message = ${b.param(final.errorMessage)}`,
      `dead_lettered_at = ${final.status === 'failed' ? b.param(now) : 'NULL'}`,
    ];
  }
  const running = state.status === 'running';
  const status = b.param(state.status);
  return [
    ...sets,
    `status = CASE WHEN e.park_requested THEN 'waiting' ELSE ${status}::text END`,
    `waiting_reason = CASE WHEN e.park_requested THEN 'manual' ELSE ${b.param(running ? null : state.reason)}::text END`,
    `waiting_payload = CASE WHEN e.park_requested THEN NULL ELSE ${b.param(running ? null : json(state.payload))}::jsonb END`,
    // A manual park of a step-driven run still ends at the run's deadline.
    `waiting_expires_at = CASE WHEN e.park_requested THEN ${deadline}::timestamptz ELSE ${b.param(running ? null : state.expiresAt)}::timestamptz END`,
    // Leases are on the database's clock, like the claim's (docs/adr/006-leases-on-the-database-clock.md).
    `locked_until = CASE WHEN e.park_requested THEN NULL ELSE now() + ${b.param(running ? state.leaseMs : null)}::int * interval '1 millisecond' END`,
    `next_attempt_at = ${b.param(running ? state.nextAttemptAt : now)}`,
  ];
}

/**
 * The recording as one statement: the execution's guarded update, then (only if it matched) the
 * step's record and its attempt. A step about to wait is written only if no park turned the wait
 * into a manual park; the wait is then entered when the run is resumed.
 */
function recordStatement(run: Run, rec: TurnRecord, now: Date, lastResponse: FinalState['response']): { name: string; text: string; values: unknown[] } {
  const b = new SqlBuilder();
  const sets = executionSets(b, run, rec, now, lastResponse);
  const ctes = [
    `moved AS (UPDATE executions AS e SET ${sets.join(', ')}
      WHERE e.id = ${b.param(run.exe.id)} AND e.status = 'running' AND e.attempt_count = ${b.param(run.turn - 1)}
        AND e.claim_token = ${b.param(run.exe.claimToken)}
      RETURNING e.status, e.waiting_reason)`,
  ];
  const at = b.param(now);
  const { step, attempt } = rec;
  if (step) {
    const stepValues = [
      step.id ?? newId('stp'), run.exe.id, step.stepIndex, step.stepId, step.type, step.status, step.attemptCount, json(step.output),
      json(step.extracted), step.errorClass, step.errorMessage, step.tokenHash, json(step.waitingPayload), step.expiresAt, step.startedAt,
      step.finishedAt,
    ].map((v) => b.param(v));
    const types = ['text', 'text', 'int', 'text', 'text', 'text', 'int', 'jsonb', 'jsonb', 'text', 'text', 'text', 'jsonb', 'timestamptz', 'timestamptz', 'timestamptz'];
    ctes.push(`step AS (INSERT INTO step_executions (id, execution_id, step_index, step_id, type, status, attempt_count, output, extracted,
        error_class, error_message, token_hash, waiting_payload, expires_at, started_at, finished_at, created_at, updated_at)
      SELECT ${stepValues.map((v, i) => `${v}::${types[i]}`).join(', ')}, ${at}::timestamptz, ${at}::timestamptz FROM moved
       WHERE ${rec.state.status === 'waiting' ? "moved.waiting_reason <> 'manual'" : 'true'}
      ON CONFLICT (execution_id, step_index) DO UPDATE SET
        status = EXCLUDED.status, attempt_count = EXCLUDED.attempt_count, output = EXCLUDED.output, extracted = EXCLUDED.extracted,
        error_class = EXCLUDED.error_class, error_message = EXCLUDED.error_message, token_hash = EXCLUDED.token_hash,
        waiting_payload = EXCLUDED.waiting_payload, expires_at = EXCLUDED.expires_at, finished_at = EXCLUDED.finished_at,
        updated_at = EXCLUDED.updated_at)`);
    if (attempt) {
      const a = [
        run.exe.id, step.stepIndex, attempt.number, attempt.status, attempt.statusCode, attempt.latencyMs, json(attempt.timings), json(attempt.request), attempt.bodyPreview,
        json(attempt.responseHeaders), attempt.errorClass, attempt.errorMessage, attempt.startedAt, attempt.budgetWaitMs ?? 0,
      ].map((v) => b.param(v));
      const attemptTypes = ['text', 'int', 'int', 'text', 'int', 'int', 'jsonb', 'jsonb', 'text', 'jsonb', 'text', 'text', 'timestamptz', 'int'];
      // Its foreign key to the step's row is checked at the end of the statement, when that row exists.
      ctes.push(`attempt AS (INSERT INTO step_attempts (execution_id, step_index, number, status, status_code, latency_ms, timings, request, body_preview,
          response_headers, error_class, error_message, started_at, budget_wait_ms, created_at)
        SELECT ${a.map((v, i) => `${v}::${attemptTypes[i]}`).join(', ')}, ${at}::timestamptz FROM moved)`);
    }
  }
  if (rec.state.status === 'final') {
    ctes.push(...executionEndedWrites(b, { workspaceId: run.exe.workspaceId, executionId: run.exe.id, jobId: run.exe.jobId, outcome: rec.state.final.status, at: now, durationMs: now.getTime() - run.exe.startedAt.getTime() }, 'moved'));
  }
  return named(`WITH ${ctes.join(', ')} SELECT status, waiting_reason FROM moved`, b.values);
}

// A recording's text depends only on its shape (which state, whether a step and an attempt are
// written), so each shape is a named statement that Postgres parses and plans once per connection.
const statementNames = new Map<string, string>();
function named(text: string, values: unknown[]): { name: string; text: string; values: unknown[] } {
  let name = statementNames.get(text);
  if (!name) {
    name = `record-turn-${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return { name, text, values };
}

/** The run's last HTTP response, for a run that ends on something other than a response (attempts are never changed, so no transaction is needed). */
async function lastResponse(pool: pg.Pool, executionId: string): Promise<FinalState['response']> {
  const { rows } = await pool.query<{ status_code: number; body_preview: string | null }>({
    name: 'last-step-response',
    text: `SELECT status_code, body_preview FROM step_attempts WHERE execution_id = $1 AND status_code IS NOT NULL
            ORDER BY step_index DESC, number DESC LIMIT 1`,
    values: [executionId],
  });
  return rows[0] ? { statusCode: rows[0].status_code, bodyPreview: rows[0].body_preview } : null;
}

type RecordedRow = { status: string; waiting_reason: string | null };

/**
 * Records one move of a turn. The execution's update comes first and is guarded by its status
 * and turn count, so a worker that lost its lease, or a second recording of the same turn,
 * changes nothing. The move, its step, its attempt and what an end owes are one statement; an
 * approval wait (its announcement) or values for the job's context store (checked against its
 * limits under the row's lock) make it a transaction. Throws ContextLimitError (after rolling
 * back) when the context store refuses the step's extract_to_context values.
 */
export async function recordTurn(deps: Pick<Deps, 'pool' | 'clock' | 'logger'>, run: Run, rec: TurnRecord): Promise<Recorded> {
  const now = deps.clock.now();
  const final = rec.state.status === 'final' ? rec.state.final : null;
  const storeChanges = rec.storeChanges ?? {};
  try {
    const response = final ? (final.response !== undefined ? final.response : await lastResponse(deps.pool, run.exe.id)) : null;
    const statement = recordStatement(run, rec, now, response);
    const recorded = (row: RecordedRow | undefined): Recorded => (row ? { recorded: true, status: row.status, waitingReason: row.waiting_reason } : { recorded: false });
    if (!rec.approval && Object.keys(storeChanges).length === 0) return recorded((await deps.pool.query<RecordedRow>(statement)).rows[0]);
    return await inTransaction(deps.pool, async (client) => {
      const [row] = (await client.query<RecordedRow>(statement)).rows;
      if (!row) throw new NotRecorded();
      if (Object.keys(storeChanges).length > 0) {
        const changed = await changeContextIn(client, run.exe.jobId, storeChanges, now);
        if ('problems' in changed) throw new ContextLimitError(changed.problems.map((p) => `${p.path}: ${p.message}`).join('; '));
      }
      // Parked before entering the wait: the wait, and its announcement, come when the run is resumed.
      if (rec.approval && row.waiting_reason !== 'manual') await writeApprovalRequired(client, run.exe.workspaceId, rec.approval, now);
      return recorded(row);
    });
  } catch (error) {
    if (error instanceof NotRecorded) return { recorded: false };
    // The same attempt recorded already: another worker took the turn over and got there first.
    if ((error as { code?: string }).code === '23505') return { recorded: false };
    throw error;
  }
}

class NotRecorded extends Error {}
