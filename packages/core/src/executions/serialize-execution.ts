import type { Attempt, AttemptStatus, Execution, ExecutionSource, ExecutionStatus, StepExecution, WaitingReason } from '@cronsvc/contracts';
import type { AttemptRow, ExecutionRow, Prisma } from '../db/client.js';

export type StepExecutionRow = Prisma.StepExecutionGetPayload<{ include: { attempts: true } }>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

type AttemptView = Omit<AttemptRow, 'bodyPreview'> & { bodyPreview?: string | null };

/** bodyPreview only when loaded: list items leave it out (see listExecutions). */
export function serializeAttempt(a: AttemptView): Attempt {
  return {
    number: a.number,
    status: a.status as AttemptStatus,
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

/** One step of a step-driven execution as the API shows it under `step_executions`. */
export function serializeStepExecution(s: StepExecutionRow): StepExecution {
  return {
    id: s.id,
    step_id: s.stepId,
    step_index: s.stepIndex,
    type: s.type,
    status: s.status,
    attempt_count: s.attemptCount,
    attempts: [...s.attempts].sort((a, b) => a.number - b.number).map(serializeAttempt),
    started_at: iso(s.startedAt),
    finished_at: iso(s.finishedAt),
    output: s.output,
    extracted: s.extracted,
    error_class: s.errorClass,
    error_message: s.errorMessage,
    ...(s.type === 'http'
      ? {}
      : { waiting_payload: s.waitingPayload, expires_at: iso(s.expiresAt), decision: s.decision, decided_at: iso(s.decidedAt), input: s.input }),
    created_at: iso(s.createdAt),
    updated_at: iso(s.updatedAt),
  };
}

/** The execution as the API shows it (SPEC 2.5, DECISIONS D6); attempts and step executions only when loaded. */
export function serializeExecution(e: ExecutionRow & { attempts?: AttemptView[]; stepExecutions?: StepExecutionRow[] }): Execution {
  return {
    id: e.id,
    job_id: e.jobId,
    job_name: e.jobName,
    status: e.status as ExecutionStatus,
    source: e.source as ExecutionSource,
    scheduled_for: iso(e.scheduledFor),
    attempt_count: e.attemptCount,
    ...(e.attempts ? { attempts: e.attempts.map(serializeAttempt) } : {}),
    ...(e.stepExecutions ? { step_executions: e.stepExecutions.map(serializeStepExecution) } : {}),
    trigger_input: e.triggerInput,
    final_response: e.finalResponse,
    final_output: e.finalOutput,
    error_class: e.errorClass,
    error_message: e.errorMessage,
    waiting_reason: e.waitingReason as WaitingReason | null,
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
