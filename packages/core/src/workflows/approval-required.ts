import type pg from 'pg';
import type { Logger } from '../logging/logger.js';

/** The `approval.required` event (SPEC 6, approval event). */
export interface ApprovalRequiredEvent {
  event: 'approval.required';
  job: { id: string; name: string };
  execution: { id: string; status: 'waiting'; waiting_reason: 'approval' };
  approval: {
    step_id: string;
    step_index: number;
    message: string;
    expires_at: string | null;
    review_url: string;
    approve_url: string;
    reject_url: string;
  };
  timestamp: string;
}

export function approvalRequiredEvent(input: {
  job: { id: string; name: string };
  executionId: string;
  stepId: string;
  stepIndex: number;
  message: string;
  expiresAt: Date | null;
  urls: { review_url: string; approve_url: string; reject_url: string };
  at: Date;
}): ApprovalRequiredEvent {
  return {
    event: 'approval.required',
    job: input.job,
    execution: { id: input.executionId, status: 'waiting', waiting_reason: 'approval' },
    approval: {
      step_id: input.stepId,
      step_index: input.stepIndex,
      message: input.message,
      expires_at: input.expiresAt?.toISOString() ?? null,
      ...input.urls,
    },
    timestamp: input.at.toISOString(),
  };
}

/**
 * Writes an approval wait's `approval.required` event, in the transaction that enters the wait.
 * The one place step-driven runs announce an approval: it is where the event goes into the
 * notification outbox, so `on_approval_required` rules deliver it. Until that outbox exists in
 * this codebase there is nothing to write to, and the wait is only logged (without its URLs,
 * which carry the token).
 */
export async function writeApprovalRequired(_client: pg.PoolClient, event: ApprovalRequiredEvent, logger: Logger): Promise<void> {
  logger.info('approval required', { executionId: event.execution.id, jobId: event.job.id, stepId: event.approval.step_id });
}
