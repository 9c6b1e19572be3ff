import type { Approval, ApprovalStatus, ExecutionStatus } from '@cronsvc/contracts';
import { AppError } from '../errors/app-error.js';
import type { Deps } from '../deps/deps.js';
import { hashToken } from '../ids/ids.js';
import { approvalUrls } from '../jobs/public-urls.js';

const iso = (d: Date | null) => d?.toISOString() ?? null;

/**
 * An approval by its token, readable before and after its decision. A step that ended without a
 * decision (its run timed out), or whose time is up though the scheduler has not expired it yet,
 * reads as expired: it can no longer be decided.
 */
export async function getApproval(deps: Pick<Deps, 'db' | 'config' | 'clock'>, token: string): Promise<Approval> {
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
  const open = step.status === 'waiting' && (step.expiresAt === null || step.expiresAt > deps.clock.now());
  const status = (step.decision ?? (open ? 'pending' : 'expired')) as ApprovalStatus;
  return {
    status,
    execution_id: step.execution.id,
    execution_status: step.execution.status as ExecutionStatus,
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
