import type { AttemptRequest, AttemptStatus, AttemptTimings, ErrorClass } from '@cronsvc/contracts';
import { columnArrays, unnestFrom, type Column } from '../db/columns.js';
import { GroupCommit } from '../db/group-commit.js';
import { perPool } from '../db/per-pool.js';
import { executionEventWanted } from '../notifications/insert-event.js';
import { streakCounted, streakWrites } from '../notifications/streak-writes.js';
import type { Deps } from '../deps/deps.js';
import type { ClaimedExecution } from './claim-attempt.js';
import { durationClass, rollupWrite } from './job-stats.js';
import type { AttemptVerdict } from '../attempts/decide-attempt.js';

/** What an attempt produced, with secret values already masked out of everything stored. */
export interface AttemptRecord {
  verdict: AttemptVerdict;
  /** The request as sent, secrets masked; null when none was sent. */
  request: AttemptRequest | null;
  latencyMs: number;
  /** Per-phase timings; null or absent when no request was made. */
  timings?: AttemptTimings | null;
  statusCode: number | null;
  preview: string | null;
  headers: Record<string, string> | null;
  output: unknown;
  /** How long the attempt waited for its host's budget or cool-down before it was sent (ms). */
  budgetWaitMs: number;
}

export type Recorded =
  | { recorded: true; nextAttemptAt: Date | null; parked: boolean }
  | { recorded: false };

/** One attempt's row for the batch statement: what the execution, the attempt and the job become. */
interface RecordRow {
  executionId: string;
  number: number;
  /** succeeded, failed, or retry. */
  outcome: string;
  at: Date;
  durationMs: number;
  /** The duration's class in the statistics rollup (job-stats.ts). */
  durationClass: number;
  finalResponse: unknown;
  finalOutput: unknown;
  errorClass: ErrorClass | null;
  errorMessage: string | null;
  /** A retry's delay (the verdict's retryAt): the next attempt is due this long after now() on the database's clock. */
  retryDelayMs: number | null;
  attemptStatus: AttemptStatus;
  statusCode: number | null;
  latencyMs: number;
  timings: AttemptTimings | null;
  request: AttemptRequest | null;
  bodyPreview: string | null;
  responseHeaders: Record<string, string> | null;
  startedAt: Date;
  budgetWaitMs: number;
  /** The one_time or scheduled job this attempt completes, when it is the job's own fire ending. */
  completesJobId: string | null;
  /** The token of the claim this attempt ran under: only the claim's current holder may record. */
  claimToken: number;
}

const RECORD_COLUMNS: readonly Column<RecordRow>[] = [
  { name: 'id', type: 'text', value: (r) => r.executionId },
  { name: 'number', type: 'int', value: (r) => r.number },
  { name: 'outcome', type: 'text', value: (r) => r.outcome },
  { name: 'at', type: 'timestamptz', value: (r) => r.at },
  { name: 'duration_ms', type: 'int', value: (r) => r.durationMs },
  { name: 'duration_class', type: 'int', value: (r) => r.durationClass },
  { name: 'final_response', type: 'jsonb', value: (r) => r.finalResponse },
  { name: 'final_output', type: 'jsonb', value: (r) => r.finalOutput },
  { name: 'error_class', type: 'text', value: (r) => r.errorClass },
  { name: 'error_message', type: 'text', value: (r) => r.errorMessage },
  { name: 'retry_delay_ms', type: 'int', value: (r) => r.retryDelayMs },
  { name: 'attempt_status', type: 'text', value: (r) => r.attemptStatus },
  { name: 'status_code', type: 'int', value: (r) => r.statusCode },
  { name: 'latency_ms', type: 'int', value: (r) => r.latencyMs },
  { name: 'timings', type: 'jsonb', value: (r) => r.timings },
  { name: 'request', type: 'jsonb', value: (r) => r.request },
  { name: 'body_preview', type: 'text', value: (r) => r.bodyPreview },
  { name: 'response_headers', type: 'jsonb', value: (r) => r.responseHeaders },
  { name: 'started_at', type: 'timestamptz', value: (r) => r.startedAt },
  { name: 'budget_wait_ms', type: 'int', value: (r) => r.budgetWaitMs },
  { name: 'completes_job_id', type: 'text', value: (r) => r.completesJobId },
  { name: 'claim_token', type: 'int', value: (r) => r.claimToken },
];

/**
 * Everything a batch of attempts changes, in one statement: each execution's new state, its
 * attempt, the outbox event of an execution that ends owing a callback or notifications (the
 * notifier turns it into those, docs/adr/009-event-outbox-and-channel-adapters.md), and a one-shot
 * job's completion, and the streaks of the jobs whose executions ended (streak-writes.ts). Each execution update is guarded by status, attempt_count and the claim
 * token, so a worker whose execution was claimed by another since (it stalled past its lease)
 * records nothing, and a second recording of the same attempt number violates the attempt's
 * primary key and fails the statement whole. A park asked for during the attempt replaces the retry.
 */
const RECORD_SQL = `
  WITH input AS (
    SELECT * FROM ${unnestFrom(RECORD_COLUMNS, 't', { ordinality: 'ord' })}
  ), updated AS (
    UPDATE executions AS e SET
      status = CASE WHEN i.outcome <> 'retry' THEN i.outcome WHEN e.park_requested THEN 'waiting' ELSE 'running' END,
      waiting_reason = CASE WHEN i.outcome = 'retry' AND e.park_requested THEN 'manual' ELSE e.waiting_reason END,
      attempt_count = i.number, locked_until = NULL, park_requested = false, updated_at = i.at, unrecorded_claims = 0, budget_waiting_since = NULL,
      next_attempt_at = CASE WHEN i.outcome = 'retry' THEN now() + i.retry_delay_ms * interval '1 millisecond' ELSE e.next_attempt_at END,
      finished_at = CASE WHEN i.outcome = 'retry' THEN e.finished_at ELSE i.at END,
      duration_ms = CASE WHEN i.outcome = 'retry' THEN e.duration_ms ELSE i.duration_ms END,
      final_response = CASE WHEN i.outcome = 'retry' THEN e.final_response ELSE i.final_response END,
      final_output = CASE WHEN i.outcome = 'retry' THEN e.final_output ELSE i.final_output END,
      error_class = CASE WHEN i.outcome = 'retry' THEN e.error_class ELSE i.error_class END,
      error_message = CASE WHEN i.outcome = 'retry' THEN e.error_message ELSE i.error_message END,
      dead_lettered_at = CASE WHEN i.outcome = 'retry' THEN e.dead_lettered_at WHEN i.outcome = 'failed' THEN i.at END
      FROM input AS i
     WHERE e.id = i.id AND e.status = 'running' AND e.attempt_count = i.number - 1 AND e.claim_token = i.claim_token
    RETURNING e.id, e.status, e.workspace_id, e.job_id
  ), attempt AS (
    INSERT INTO attempts (execution_id, number, status, status_code, latency_ms, timings, request, body_preview, response_headers, error_class, error_message, started_at, budget_wait_ms, created_at)
    SELECT i.id, i.number, i.attempt_status, i.status_code, i.latency_ms, i.timings, i.request, i.body_preview, i.response_headers,
           i.error_class, i.error_message, i.started_at, i.budget_wait_ms, i.at
      FROM updated AS u JOIN input AS i ON i.id = u.id
  ), finished AS (
    SELECT u.id, u.job_id, u.status, i.ord
      FROM updated AS u JOIN input AS i ON i.id = u.id JOIN jobs AS j ON j.id = u.job_id
     WHERE u.status IN ('succeeded', 'failed') AND ${streakCounted('j')}
  ), ${streakWrites('finished').join(', ')}, event AS (
    INSERT INTO events (workspace_id, type, execution_id, streak_failures, streak_epoch, created_at)
    SELECT u.workspace_id, 'execution.' || u.status, u.id, se.failures, se.epoch, i.at
      FROM updated AS u JOIN input AS i ON i.id = u.id JOIN jobs AS j ON j.id = u.job_id LEFT JOIN streak_events AS se ON se.id = u.id
     WHERE u.status IN ('succeeded', 'failed') AND ${executionEventWanted('j', 'u.status')}
  ), ${rollupWrite('rolled', `SELECT u.job_id, i.at, u.status = 'failed' AS failed, i.duration_class
      FROM updated AS u JOIN input AS i ON i.id = u.id WHERE u.status IN ('succeeded', 'failed')`)}, completed AS (
    UPDATE jobs AS j SET state = 'completed', updated_at = i.at
      FROM updated AS u JOIN input AS i ON i.id = u.id
     WHERE j.id = i.completes_job_id AND j.kind IN ('one_time', 'scheduled') AND j.state = 'active' AND j.next_run_at IS NULL
  )
  SELECT id, status FROM updated`;

/**
 * Recordings of concurrent attempts leave together, one statement per batch (one batcher per
 * pool); each answers the execution's status after the recording, or null when nothing was
 * recorded. A batch that fails (an attempt recorded twice) is retried attempt by attempt, so
 * only that one fails.
 */
const records = perPool(
  (pool) =>
    new GroupCommit<RecordRow, string | null>(
      async (rows) => {
        const result = await pool.query<{ id: string; status: string }>({ name: 'record-attempts', text: RECORD_SQL, values: columnArrays(RECORD_COLUMNS, rows) });
        const status = new Map(result.rows.map((r) => [r.id, r.status]));
        return rows.map((r) => status.get(r.executionId) ?? null);
      },
      { maxBatch: 500, maxInFlight: 2 },
    ),
);

/**
 * Records an attempt and its outcome (through the batch statement above). A worker that lost
 * the execution, or whose attempt was recorded already, records nothing.
 */
export async function recordAttempt(
  deps: Pick<Deps, 'clock' | 'pool'>,
  exe: ClaimedExecution,
  number: number,
  startedAt: Date,
  record: AttemptRecord,
): Promise<Recorded> {
  const now = deps.clock.now();
  const { verdict } = record;
  const final = verdict.outcome !== 'retry';
  const retryDelayMs = verdict.outcome === 'retry' ? Math.max(0, verdict.retryAt.getTime() - now.getTime()) : null;
  // When the next attempt's queue job should run, on this executor's clock; the row's
  // next_attempt_at is set from the database's (see RECORD_SQL).
  const nextAttemptAt = retryDelayMs === null ? null : new Date(now.getTime() + retryDelayMs);
  const finalResponse = record.statusCode === null ? null : { statusCode: record.statusCode, bodyPreview: record.preview };
  try {
    const status = await records(deps.pool).add({
      executionId: exe.id,
      number,
      outcome: verdict.outcome,
      at: now,
      durationMs: now.getTime() - exe.startedAt.getTime(),
      durationClass: durationClass(now.getTime() - exe.startedAt.getTime()),
      finalResponse,
      finalOutput: record.output,
      errorClass: verdict.errorClass,
      errorMessage: verdict.errorMessage,
      retryDelayMs,
      attemptStatus: verdict.status,
      statusCode: record.statusCode,
      latencyMs: record.latencyMs,
      timings: record.timings ?? null,
      request: record.request,
      bodyPreview: record.preview,
      responseHeaders: record.headers,
      startedAt,
      budgetWaitMs: record.budgetWaitMs,
      // A one_time or scheduled job's own fire ending completes the job (not a run-now or replay).
      completesJobId: final && exe.source === 'schedule' ? exe.jobId : null,
      claimToken: exe.claimToken,
    });
    if (status === null) return { recorded: false };
    const parked = status === 'waiting';
    return { recorded: true, nextAttemptAt: parked ? null : nextAttemptAt, parked };
  } catch (error) {
    // The same attempt number recorded already: another worker took over and got there first.
    if ((error as { code?: string }).code === '23505') return { recorded: false };
    throw error;
  }
}
