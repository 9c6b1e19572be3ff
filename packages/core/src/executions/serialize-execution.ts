import type {
  Attempt, AttemptRequest, AttemptStatus, AttemptTimings, ErrorClass, Execution, ExecutionSource, ExecutionStatus, ExecutionSummary, StepDecision, StepExecution,
  StepExecutionStatus, StepType, WaitingReason,
} from '@cronsvc/contracts';
import type { AttemptRow, ExecutionRow, Prisma } from '../db/client.js';
import type { ListedExecution } from './list-executions.js';

export type StepExecutionRow = Prisma.StepExecutionGetPayload<{ include: { attempts: true } }>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

type AttemptView = Omit<AttemptRow, 'bodyPreview' | 'request'> & { bodyPreview?: string | null; request?: Prisma.JsonValue };

/** bodyPreview and request only when loaded: list items leave them out (see listExecutions). */
export function serializeAttempt(a: AttemptView): Attempt {
  return {
    number: a.number,
    status: a.status as AttemptStatus,
    statusCode: a.statusCode,
    latencyMs: a.latencyMs,
    timings: (a.timings ?? null) as AttemptTimings | null,
    ...('request' in a ? { request: (a.request ?? null) as AttemptRequest | null } : {}),
    ...('bodyPreview' in a ? { bodyPreview: a.bodyPreview } : {}),
    responseHeaders: a.responseHeaders as Record<string, string> | null,
    errorClass: a.errorClass as ErrorClass | null,
    errorMessage: a.errorMessage,
    startedAt: a.startedAt.toISOString(),
    budget_wait_ms: a.budgetWaitMs,
    // Attempts never change once recorded.
    created_at: a.createdAt.toISOString(),
    updated_at: a.createdAt.toISOString(),
  };
}

/** One step of a step-driven execution as the API shows it under `step_executions`. */
export function serializeStepExecution(s: StepExecutionRow): StepExecution {
  return {
    id: s.id,
    step_id: s.stepId,
    step_index: s.stepIndex,
    type: s.type as StepType,
    status: s.status as StepExecutionStatus,
    attempt_count: s.attemptCount,
    attempts: [...s.attempts].sort((a, b) => a.number - b.number).map(serializeAttempt),
    started_at: s.startedAt.toISOString(),
    finished_at: iso(s.finishedAt),
    output: s.output,
    extracted: s.extracted,
    error_class: s.errorClass as ErrorClass | null,
    error_message: s.errorMessage,
    ...(s.type === 'http'
      ? {}
      : { waiting_payload: s.waitingPayload, expires_at: iso(s.expiresAt), decision: s.decision as StepDecision | null, decided_at: iso(s.decidedAt), input: s.input }),
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

/** The execution as the API shows it (docs/JOBS.md, "Executions and attempts"); attempts and step executions only when loaded. */
export function serializeExecution(e: ExecutionRow & { attempts?: AttemptView[]; stepExecutions?: StepExecutionRow[] }): Execution {
  return {
    ...serializeExecutionSummary(e),
    ...(e.stepExecutions ? { step_executions: e.stepExecutions.map(serializeStepExecution) } : {}),
    trigger_input: e.triggerInput,
    final_response: e.finalResponse,
    final_output: e.finalOutput,
  };
}

/** An execution as the lists show it (docs/API.md, "Lists"): without trigger_input, final_response and final_output. */
export function serializeExecutionSummary(e: Omit<ListedExecution, 'attempts'> & { attempts?: AttemptView[] }): ExecutionSummary {
  return {
    id: e.id,
    job_id: e.jobId,
    job_name: e.jobName,
    status: e.status as ExecutionStatus,
    source: e.source as ExecutionSource,
    scheduled_for: e.scheduledFor.toISOString(),
    attempt_count: e.attemptCount,
    ...(e.attempts ? { attempts: e.attempts.map(serializeAttempt) } : {}),
    error_class: e.errorClass as ErrorClass | null,
    error_message: e.errorMessage,
    waiting_reason: e.waitingReason as WaitingReason | null,
    waiting_payload: e.waitingPayload,
    waiting_expires_at: iso(e.waitingExpiresAt),
    dead_lettered_at: iso(e.deadLetteredAt),
    replay_of_id: e.replayOfId,
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
    started_at: iso(e.startedAt),
    finished_at: iso(e.finishedAt),
    duration_ms: e.durationMs,
  };
}
