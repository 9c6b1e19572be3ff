import { AppError } from '../errors/app-error.js';
import type { Deps } from '../runtime/deps.js';
import { hashToken } from '../workspaces/workspaces.js';
import { approvalUrls } from './public-urls.js';

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired';

/** GET /v1/approvals/:token as JSON, and what the review page shows. */
export interface ApprovalView {
  status: ApprovalStatus;
  execution_id: string;
  execution_status: string;
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

const iso = (d: Date | null) => d?.toISOString() ?? null;

/**
 * An approval by its token, readable before and after its decision (DECISIONS D7). A step that
 * ended without a decision (its run timed out) reads as expired.
 */
export async function getApproval(deps: Pick<Deps, 'db' | 'config'>, token: string): Promise<ApprovalView> {
  const step = await deps.db.stepExecution.findUnique({
    where: { tokenHash: hashToken(token) },
    include: { execution: { select: { id: true, status: true, jobId: true, jobName: true } } },
  });
  if (!step || step.type !== 'approval') throw new AppError('not_found', 'no approval has this token');
  const before = await deps.db.stepExecution.findMany({
    where: { executionId: step.executionId, stepIndex: { lt: step.stepIndex } },
    orderBy: { stepIndex: 'asc' },
    include: { attempts: { orderBy: { number: 'desc' }, take: 1, select: { statusCode: true } } },
  });
  const payload = (step.waitingPayload ?? {}) as { message?: string };
  const status = (step.decision ?? (step.status === 'waiting' ? 'pending' : 'expired')) as ApprovalStatus;
  return {
    status,
    execution_id: step.execution.id,
    execution_status: step.execution.status,
    job: { id: step.execution.jobId, name: step.execution.jobName },
    step_id: step.stepId,
    step_index: step.stepIndex,
    message: payload.message ?? '',
    requested_at: step.startedAt.toISOString(),
    expires_at: iso(step.expiresAt),
    decided_at: iso(step.decidedAt),
    ...approvalUrls(deps.config.publicBaseUrl, token),
    previous_steps: before.map((s) => ({
      step_id: s.stepId,
      step_index: s.stepIndex,
      type: s.type,
      status: s.status,
      status_code: s.attempts[0]?.statusCode ?? null,
      finished_at: iso(s.finishedAt),
    })),
  };
}
