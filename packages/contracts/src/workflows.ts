import type { ExecutionStatus } from './executions.js';

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export type ApprovalDecision = 'approved' | 'rejected';

/** GET /v1/approvals/:token as JSON. */
export interface Approval {
  status: ApprovalStatus;
  execution_id: string;
  execution_status: ExecutionStatus;
  job: { id: string; name: string };
  step_id: string;
  step_index: number;
  message: string;
  requested_at: string;
  expires_at: string | null;
  decided_at: string | null;
  review_url: string;
  approve_url: string;
  reject_url: string;
  /** The steps the run went through before this one. */
  previous_steps: { step_id: string; step_index: number; type: string; status: string; status_code: number | null; finished_at: string | null }[];
}

/** POST /v1/approvals/:token/approve|reject answer. */
export interface ApprovalDecisionResult {
  status: ApprovalDecision;
  execution_id: string;
}

/** POST /v1/resume/:token answer. */
export interface ResumeResult {
  resumed: true;
  execution_id: string;
}

/** POST /v1/triggers/:token answer, for known and unknown tokens alike. */
export interface TriggerResult {
  received: true;
}
