import type pg from 'pg';
import { inTransaction, SqlBuilder } from '../db/client.js';
import { newId } from '../ids/ids.js';
import type { Deps } from '../runtime/deps.js';
import { writeApprovalRequired, type ApprovalRequiredEvent } from './approval-required.js';
import { writeExecutionEnded } from './execution-ended.js';
import { changeContextIn, type ContextChanges } from './job-context.js';
import type { Run, StepRow } from './load-run.js';

/** A step attempt as stored: the fields of an execution's attempt. */
export interface StepAttemptWrite {
  number: number;
  status: string;
  statusCode: number | null;
  latencyMs: number;
  bodyPreview: string | null;
  responseHeaders: Record<string, string> | null;
  errorClass: string | null;
  errorMessage: string | null;
  startedAt: Date;
}

export interface FinalState {
  status: 'succeeded' | 'failed';
  errorClass: string | null;
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
    | { status: 'running'; leaseUntil: Date | null; nextAttemptAt: Date }
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
  | { recorded: true; status: string; waitingReason: string | null; callbackId: string | null };

/** The context store refused extract_to_context values; nothing of the recording was kept. */
export class ContextLimitError extends Error {}

const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

function executionUpdate(run: Run, rec: TurnRecord, now: Date, lastResponse: FinalState['response']): { text: string; values: unknown[] } {
  const b = new SqlBuilder();
  const deadline = b.param(run.deadline);
  const sets = [
    `attempt_count = ${b.param(run.turn)}`,
    `updated_at = ${b.param(now)}`,
    `steps = COALESCE(e.steps, ${b.param(json(run.stepsToStore))}::jsonb)`,
    `deadline_at = COALESCE(e.deadline_at, ${deadline}::timestamptz)`,
    `context = ${b.param(JSON.stringify(rec.context))}::jsonb`,
    `step_index = ${b.param(rec.index)}`,
    'park_requested = false',
  ];
  const { state } = rec;
  if (state.status === 'final') {
    const { final } = state;
    sets.push(
      `status = ${b.param(final.status)}`,
      'waiting_reason = NULL', 'waiting_payload = NULL', 'waiting_expires_at = NULL', 'locked_until = NULL',
      `finished_at = ${b.param(now)}`,
      `duration_ms = ${b.param(now.getTime() - run.exe.startedAt.getTime())}`,
      `final_response = ${b.param(json(lastResponse))}::jsonb`,
      `final_output = ${b.param(JSON.stringify(rec.context))}::jsonb`,
      `error_class = ${b.param(final.errorClass)}`,
      `error_message = ${b.param(final.errorMessage)}`,
      `dead_lettered_at = ${final.status === 'failed' ? b.param(now) : 'NULL'}`,
    );
  } else {
    const running = state.status === 'running';
    const status = b.param(state.status);
    sets.push(
      `status = CASE WHEN e.park_requested THEN 'waiting' ELSE ${status}::text END`,
      `waiting_reason = CASE WHEN e.park_requested THEN 'manual' ELSE ${b.param(running ? null : state.reason)}::text END`,
      `waiting_payload = CASE WHEN e.park_requested THEN NULL ELSE ${b.param(running ? null : JSON.stringify(state.payload))}::jsonb END`,
      // A manual park of a step-driven run still ends at the run's deadline.
      `waiting_expires_at = CASE WHEN e.park_requested THEN ${deadline}::timestamptz ELSE ${b.param(running ? null : state.expiresAt)}::timestamptz END`,
      `locked_until = CASE WHEN e.park_requested THEN NULL ELSE ${b.param(running ? state.leaseUntil : null)}::timestamptz END`,
      `next_attempt_at = ${b.param(running ? state.nextAttemptAt : now)}`,
    );
  }
  const id = b.param(run.exe.id);
  const previous = b.param(run.turn - 1);
  return {
    text: `UPDATE executions AS e SET ${sets.join(', ')} WHERE e.id = ${id} AND e.status = 'running' AND e.attempt_count = ${previous} RETURNING e.status, e.waiting_reason`,
    values: b.values,
  };
}

const STEP_UPSERT = `
  INSERT INTO step_executions (id, execution_id, step_index, step_id, type, status, attempt_count, output, extracted, error_class,
    error_message, token_hash, waiting_payload, expires_at, started_at, finished_at, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17)
  ON CONFLICT (execution_id, step_index) DO UPDATE SET
    status = EXCLUDED.status, attempt_count = EXCLUDED.attempt_count, output = EXCLUDED.output, extracted = EXCLUDED.extracted,
    error_class = EXCLUDED.error_class, error_message = EXCLUDED.error_message, token_hash = EXCLUDED.token_hash,
    waiting_payload = EXCLUDED.waiting_payload, expires_at = EXCLUDED.expires_at, finished_at = EXCLUDED.finished_at,
    updated_at = EXCLUDED.updated_at`;

async function writeStep(client: pg.PoolClient, run: Run, step: NonNullable<TurnRecord['step']>, now: Date): Promise<void> {
  await client.query(STEP_UPSERT, [
    step.id ?? newId('stp'), run.exe.id, step.stepIndex, step.stepId, step.type, step.status, step.attemptCount, json(step.output),
    json(step.extracted), step.errorClass, step.errorMessage, step.tokenHash, json(step.waitingPayload), step.expiresAt, step.startedAt,
    step.finishedAt, now,
  ]);
}

async function writeAttempt(client: pg.PoolClient, run: Run, stepIndex: number, a: StepAttemptWrite, now: Date): Promise<void> {
  await client.query(
    `INSERT INTO step_attempts (execution_id, step_index, number, status, status_code, latency_ms, body_preview, response_headers,
       error_class, error_message, started_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [run.exe.id, stepIndex, a.number, a.status, a.statusCode, a.latencyMs, a.bodyPreview, json(a.responseHeaders), a.errorClass, a.errorMessage, a.startedAt, now],
  );
}

/** The run's last HTTP response, for a run that ends on something other than a response. */
async function lastResponse(client: pg.PoolClient, executionId: string): Promise<FinalState['response']> {
  const { rows } = await client.query<{ status_code: number; body_preview: string | null }>(
    `SELECT status_code, body_preview FROM step_attempts WHERE execution_id = $1 AND status_code IS NOT NULL
      ORDER BY step_index DESC, number DESC LIMIT 1`,
    [executionId],
  );
  return rows[0] ? { statusCode: rows[0].status_code, bodyPreview: rows[0].body_preview } : null;
}

/**
 * Records one move of a turn in one transaction. The execution's update comes first and is
 * guarded by its status and turn count, so a worker that lost its lease, or a second recording of
 * the same turn, changes nothing. Throws ContextLimitError (after rolling back) when the job's
 * context store refuses the step's extract_to_context values.
 */
export async function recordTurn(deps: Pick<Deps, 'pool' | 'clock' | 'logger'>, run: Run, rec: TurnRecord): Promise<Recorded> {
  const now = deps.clock.now();
  const final = rec.state.status === 'final' ? rec.state.final : null;
  try {
    return await inTransaction(deps.pool, async (client) => {
      const response = final ? (final.response !== undefined ? final.response : await lastResponse(client, run.exe.id)) : null;
      const update = executionUpdate(run, rec, now, response);
      const { rows } = await client.query<{ status: string; waiting_reason: string | null }>(update.text, update.values);
      if (rows.length === 0) throw new NotRecorded();
      const { status, waiting_reason: waitingReason } = rows[0];
      // Parked before entering a wait: the wait is entered when the run is resumed.
      const enteredWait = rec.state.status === 'waiting' && waitingReason !== 'manual';
      if (rec.step && (rec.state.status !== 'waiting' || enteredWait)) await writeStep(client, run, rec.step, now);
      if (rec.attempt && rec.step) await writeAttempt(client, run, rec.step.stepIndex, rec.attempt, now);
      if (rec.storeChanges && Object.keys(rec.storeChanges).length > 0) {
        const changed = await changeContextIn(client, run.exe.jobId, rec.storeChanges, now);
        if ('problems' in changed) throw new ContextLimitError(changed.problems.map((p) => `${p.path}: ${p.message}`).join('; '));
      }
      if (rec.approval && enteredWait) await writeApprovalRequired(client, rec.approval, deps.logger);
      const ended = final
        ? await writeExecutionEnded(client, {
            workspaceId: run.exe.workspaceId,
            executionId: run.exe.id,
            job: { id: run.exe.jobId, name: run.exe.jobName },
            outcome: final.status,
            statusCode: response?.statusCode ?? null,
            bodyPreview: response?.bodyPreview ?? null,
            errorClass: final.errorClass,
            output: rec.context,
            onSuccessUrl: run.exe.onSuccessUrl,
            onFailureUrl: run.exe.onFailureUrl,
            at: now,
          })
        : { callbackId: null };
      return { recorded: true as const, status, waitingReason, callbackId: ended.callbackId };
    });
  } catch (error) {
    if (error instanceof NotRecorded) return { recorded: false };
    // The same attempt recorded already: another worker took the turn over and got there first.
    if ((error as { code?: string }).code === '23505') return { recorded: false };
    throw error;
  }
}

class NotRecorded extends Error {}
