import { SqlBuilder, type SqlPool } from '../db/client.js';
import { callbackDelivery } from '../deliveries/callback-deliveries.js';
import { executionEvent } from '../deliveries/execution-event.js';
import type { Deps } from '../runtime/deps.js';
import type { ClaimedExecution } from './claim-attempt.js';
import { backoffMs, type AttemptVerdict } from './decide-attempt.js';

/** What an attempt produced, with secret values already masked out of everything stored. */
export interface AttemptRecord {
  verdict: AttemptVerdict;
  latencyMs: number;
  statusCode: number | null;
  preview: string | null;
  headers: Record<string, string> | null;
  output: unknown;
}

export type Recorded =
  | { recorded: true; nextAttemptAt: Date | null; parked: boolean; callbackId: string | null }
  | { recorded: false };

const jsonb = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/**
 * Records an attempt in one statement: the execution's new state, the attempt, the callback the
 * execution owes when it ends, and a one-shot job's completion. One statement is one round trip
 * and is atomic: the execution update is guarded by status and attempt_count, so a worker that
 * lost its lease records nothing, and a second recording of the same attempt number violates
 * the attempt's primary key and fails whole. A park asked for during the attempt replaces the retry.
 */
export async function recordAttempt(
  deps: Pick<Deps, 'clock'> & { pool: SqlPool; random?: () => number },
  exe: ClaimedExecution,
  number: number,
  startedAt: Date,
  record: AttemptRecord,
): Promise<Recorded> {
  const now = deps.clock.now();
  const { verdict } = record;
  const final = verdict.outcome !== 'retry';
  const nextAttemptAt = final ? null : new Date(now.getTime() + backoffMs(number, deps.random));
  const finalResponse = record.statusCode === null ? null : { statusCode: record.statusCode, bodyPreview: record.preview };
  const outcome = verdict.outcome as 'succeeded' | 'failed';
  const callback = final
    ? callbackDelivery({
        workspaceId: exe.workspaceId,
        executionId: exe.id,
        outcome,
        onSuccessUrl: exe.onSuccessUrl,
        onFailureUrl: exe.onFailureUrl,
        payload: executionEvent({
          status: outcome,
          job: { id: exe.jobId, name: exe.jobName },
          executionId: exe.id,
          statusCode: record.statusCode,
          bodyPreview: record.preview,
          errorClass: verdict.errorClass,
          output: record.output,
          at: now,
        }),
        now,
      })
    : null;

  const q = new SqlBuilder();
  const p = (value: unknown) => q.param(value);
  const setState = final
    ? `status = ${p(verdict.outcome)}, attempt_count = ${p(number)}, locked_until = NULL, park_requested = false,
        finished_at = ${p(now)}, duration_ms = ${p(now.getTime() - exe.startedAt.getTime())},
        final_response = ${p(jsonb(finalResponse))}::jsonb, final_output = ${p(jsonb(record.output))}::jsonb,
        error_class = ${p(verdict.errorClass)}, error_message = ${p(verdict.errorMessage)},
        dead_lettered_at = ${p(verdict.outcome === 'failed' ? now : null)}::timestamptz, updated_at = ${p(now)}`
    : `attempt_count = ${p(number)}, locked_until = NULL, next_attempt_at = ${p(nextAttemptAt)},
        status = CASE WHEN park_requested THEN 'waiting' ELSE 'running' END,
        waiting_reason = CASE WHEN park_requested THEN 'manual' ELSE waiting_reason END,
        park_requested = false, updated_at = ${p(now)}`;
  const updated = `WITH updated AS (
        UPDATE executions SET ${setState}
         WHERE id = ${p(exe.id)} AND status = 'running' AND attempt_count = ${p(number - 1)}
        RETURNING id, status
      ), attempt AS (
        INSERT INTO attempts (execution_id, number, status, status_code, latency_ms, body_preview, response_headers, error_class, error_message, started_at, created_at)
        SELECT id, ${p(number)}, ${p(verdict.status)}, ${p(record.statusCode)}::int, ${p(record.latencyMs)}, ${p(record.preview)}, ${p(jsonb(record.headers))}::jsonb,
               ${p(verdict.errorClass)}, ${p(verdict.errorMessage)}, ${p(startedAt)}, ${p(now)} FROM updated
      )`;
  const insertCallback = callback
    ? `, callback AS (
        INSERT INTO deliveries (id, workspace_id, execution_id, kind, event, url, payload, status, next_attempt_at, created_at, updated_at)
        SELECT ${p(callback.id)}, ${p(callback.workspaceId)}, id, ${p(callback.kind)}, ${p(callback.event)}, ${p(callback.url)},
               ${p(jsonb(callback.payload))}::jsonb, 'pending', ${p(now)}, ${p(now)}, ${p(now)} FROM updated)`
    : '';
  // A one_time or scheduled job's own fire ending completes the job (not a run-now or replay).
  const completes = final && exe.source === 'schedule';
  const completeJob = completes
    ? `, completed AS (
          UPDATE jobs SET state = 'completed', updated_at = ${p(now)}
           WHERE id = ${p(exe.jobId)} AND kind IN ('one_time', 'scheduled') AND state = 'active' AND next_run_at IS NULL
             AND EXISTS (SELECT 1 FROM updated))`
    : '';
  // One statement shape per variant, each prepared once per connection.
  const name = `record-attempt-${final ? 'final' : 'retry'}${callback ? '-callback' : ''}${completes ? '-complete' : ''}`;
  try {
    const { rows } = await deps.pool.query<{ status: string }>({ name, text: `${updated}${insertCallback}${completeJob} SELECT status FROM updated`, values: q.values });
    if (rows.length === 0) return { recorded: false };
    const parked = rows[0].status === 'waiting';
    return { recorded: true, nextAttemptAt: parked ? null : nextAttemptAt, parked, callbackId: callback?.id ?? null };
  } catch (error) {
    // The same attempt number recorded already: another worker took over and got there first.
    if ((error as { code?: string }).code === '23505') return { recorded: false };
    throw error;
  }
}
