import type pg from 'pg';
import { insertEvent } from '../notifications/insert-event.js';

/** The `approval.required` event (docs/NOTIFICATIONS.md, "Rules and events"). */
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
 * Writes an approval wait's `approval.required` event into the notification outbox, in the
 * transaction that enters the wait, so the job's `on_approval_required` rules deliver it. The one
 * place step-driven runs announce an approval.
 */
export async function writeApprovalRequired(client: pg.PoolClient, workspaceId: string, event: ApprovalRequiredEvent, at: Date): Promise<void> {
  await insertEvent(client, { workspaceId, type: 'approval.required', executionId: event.execution.id, payload: event }, at);
}
