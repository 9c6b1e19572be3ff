import type { ResumeResult } from '@cronsvc/contracts';
import { AppError } from '../errors/app-error.js';
import type { Deps } from '../deps/deps.js';
import { hashToken } from '../ids/ids.js';
import { currentRequestId } from '../logging/log-context.js';
import { settleWait } from '../executions/settle-wait.js';
import { storableValue } from '../validation/storable-text.js';

/**
 * POST /v1/resume/:token (docs/WORKFLOWS.md, "Waiting for a webhook"): the posted payload becomes the waiting step's input and
 * the run continues. A token works once: used, expired or unknown, it is a 404. NUL in the payload
 * is replaced before it is stored (Postgres cannot store it).
 */
/** The answer to a token no waiting step has, whether it is unknown, used, or its wait is over. */
export const unknownResumeToken = () => new AppError('not_found', 'no waiting step has this resume token (it is unknown, used, or its wait is over)');

export async function resumeByToken(deps: Pick<Deps, 'pool' | 'clock' | 'queues' | 'logger'>, token: string, payload: unknown): Promise<ResumeResult> {
  const audit = { action: 'execution.resumed', actor: { kind: 'public' as const, tokenId: null, name: null, requestId: currentRequestId() ?? null } };
  const settled = await settleWait(deps, { tokenHash: hashToken(token) }, { type: 'wait_for_webhook', decision: 'resumed', input: storableValue(payload) }, audit);
  if (!settled) throw unknownResumeToken();
  return { resumed: true, execution_id: settled.executionId };
}
