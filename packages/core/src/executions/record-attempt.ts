import { Prisma } from '../db/client.js';
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
  deps: Pick<Deps, 'db' | 'clock'> & { random?: () => number },
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

  const setState = final
    ? Prisma.sql`status = ${verdict.outcome}, attempt_count = ${number}, locked_until = NULL, park_requested = false,
        finished_at = ${now}, duration_ms = ${now.getTime() - exe.startedAt.getTime()},
        final_response = ${jsonb(finalResponse)}::jsonb, final_output = ${jsonb(record.output)}::jsonb,
        error_class = ${verdict.errorClass}, error_message = ${verdict.errorMessage},
        dead_lettered_at = ${verdict.outcome === 'failed' ? now : null}, updated_at = ${now}`
    : Prisma.sql`attempt_count = ${number}, locked_until = NULL, next_attempt_at = ${nextAttemptAt},
        status = CASE WHEN park_requested THEN 'waiting' ELSE 'running' END,
        waiting_reason = CASE WHEN park_requested THEN 'manual' ELSE waiting_reason END,
        park_requested = false, updated_at = ${now}`;
  const insertCallback = callback
    ? Prisma.sql`, callback AS (
        INSERT INTO deliveries (id, workspace_id, execution_id, kind, event, url, payload, status, next_attempt_at, created_at, updated_at)
        SELECT ${callback.id}, ${callback.workspaceId}, ${exe.id}, ${callback.kind}, ${callback.event}, ${callback.url},
               ${jsonb(callback.payload)}::jsonb, 'pending', ${now}, ${now}, ${now} FROM updated)`
    : Prisma.empty;
  // A one_time or scheduled job's own fire ending completes the job (not a run-now or replay).
  const completeJob =
    final && exe.source === 'schedule'
      ? Prisma.sql`, completed AS (
          UPDATE jobs SET state = 'completed', updated_at = ${now}
           WHERE id = ${exe.jobId} AND kind IN ('one_time', 'scheduled') AND state = 'active' AND next_run_at IS NULL
             AND EXISTS (SELECT 1 FROM updated))`
      : Prisma.empty;
  try {
    const rows = await deps.db.$queryRaw<{ status: string }[]>`
      WITH updated AS (
        UPDATE executions SET ${setState}
         WHERE id = ${exe.id} AND status = 'running' AND attempt_count = ${number - 1}
        RETURNING id, status
      ), attempt AS (
        INSERT INTO attempts (execution_id, number, status, status_code, latency_ms, body_preview, response_headers, error_class, error_message, started_at, created_at)
        SELECT id, ${number}, ${verdict.status}, ${record.statusCode}, ${record.latencyMs}, ${record.preview}, ${jsonb(record.headers)}::jsonb,
               ${verdict.errorClass}, ${verdict.errorMessage}, ${startedAt}, ${now} FROM updated
      )${insertCallback}${completeJob}
      SELECT status FROM updated`;
    if (rows.length === 0) return { recorded: false };
    const parked = rows[0].status === 'waiting';
    return { recorded: true, nextAttemptAt: parked ? null : nextAttemptAt, parked, callbackId: callback?.id ?? null };
  } catch (error) {
    // The same attempt number recorded already: another worker took over and got there first.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') return { recorded: false };
    if (/attempts_pkey/.test((error as Error).message)) return { recorded: false };
    throw error;
  }
}
