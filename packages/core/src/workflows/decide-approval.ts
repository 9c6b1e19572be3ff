import { currentRequestId } from '../logging/log-context.js';
import type { ApprovalDecision, ApprovalDecisionResult } from '@cronsvc/contracts';
import { AppError } from '../errors/app-error.js';
import type { Deps } from '../deps/deps.js';
import { hashToken } from '../ids/ids.js';
import { settleWait } from '../executions/settle-wait.js';
import { storableValue } from '../validation/storable-text.js';

/**
 * POST /v1/approvals/:token/approve|reject (docs/WORKFLOWS.md, "Approvals"): the first decision counts and queues
 * the run; a token already decided (or expired) answers 409 already_decided, an unknown one 404.
 */
export async function decideApproval(
  deps: Pick<Deps, 'db' | 'pool' | 'clock' | 'queues' | 'logger'>,
  token: string,
  decision: ApprovalDecision,
  input: unknown,
): Promise<ApprovalDecisionResult> {
  const tokenHash = hashToken(token);
  // NUL in a comment or body is replaced before it is stored (Postgres cannot store it).
  // Whoever holds the link decides: the audit log names a public caller, with the request's id.
  const audit = { action: `approval.${decision}`, actor: { kind: 'public' as const, tokenId: null, name: null, requestId: currentRequestId() ?? null } };
  const settled = await settleWait(deps, { tokenHash }, { type: 'approval', decision, input: storableValue(input) }, audit);
  if (settled) return { status: decision, execution_id: settled.executionId };
  const step = await deps.db.stepExecution.findUnique({ where: { tokenHash }, select: { type: true, decision: true, status: true, expiresAt: true } });
  if (!step || step.type !== 'approval') throw new AppError('not_found', 'no approval has this token');
  const expired = step.expiresAt !== null && step.expiresAt <= deps.clock.now();
  throw new AppError('already_decided', `this approval is already ${step.decision ?? (expired ? 'expired' : 'closed')}`);
}
