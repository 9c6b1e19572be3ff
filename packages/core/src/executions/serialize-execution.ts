import type { AttemptRow, ExecutionRow } from '../db/client.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

type AttemptView = Omit<AttemptRow, 'bodyPreview'> & { bodyPreview?: string | null };

/** bodyPreview only when loaded: list items leave it out (see listExecutions). */
export function serializeAttempt(a: AttemptView): Record<string, unknown> {
  return {
    number: a.number,
    status: a.status,
    statusCode: a.statusCode,
    latencyMs: a.latencyMs,
    ...('bodyPreview' in a ? { bodyPreview: a.bodyPreview } : {}),
    responseHeaders: a.responseHeaders,
    errorClass: a.errorClass,
    errorMessage: a.errorMessage,
    startedAt: iso(a.startedAt),
    // Attempts never change once recorded.
    created_at: iso(a.createdAt),
    updated_at: iso(a.createdAt),
  };
}

/** The execution as the API shows it (SPEC 2.5, DECISIONS D6); attempts only when loaded. */
export function serializeExecution(e: ExecutionRow & { attempts?: AttemptView[] }): Record<string, unknown> {
  return {
    id: e.id,
    job_id: e.jobId,
    job_name: e.jobName,
    status: e.status,
    source: e.source,
    scheduled_for: iso(e.scheduledFor),
    attempt_count: e.attemptCount,
    ...(e.attempts ? { attempts: e.attempts.map(serializeAttempt) } : {}),
    final_response: e.finalResponse,
    final_output: e.finalOutput,
    error_class: e.errorClass,
    error_message: e.errorMessage,
    waiting_reason: e.waitingReason,
    waiting_payload: e.waitingPayload,
    waiting_expires_at: iso(e.waitingExpiresAt),
    dead_lettered_at: iso(e.deadLetteredAt),
    replay_of_id: e.replayOfId,
    created_at: iso(e.createdAt),
    updated_at: iso(e.updatedAt),
    started_at: iso(e.startedAt),
    finished_at: iso(e.finishedAt),
    duration_ms: e.durationMs,
  };
}
