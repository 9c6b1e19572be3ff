import { EXECUTION_ID_HEADER } from '../executions/build-request.js';
import type { HttpClient } from '../http/http-client.js';
import { DecryptionError } from '../secrets/crypto.js';
import type { Deps } from '../runtime/deps.js';
import { DELIVERY_ATTEMPTS } from './callback-deliveries.js';
import { decideDelivery } from './delivery-policy.js';

/** Signature headers for a body a workspace sends (DECISIONS D5). */
export type RequestSigner = (workspaceId: string, messageId: string, body: string) => Promise<Record<string, string>>;

export interface DeliveryDeps extends Deps {
  http: HttpClient;
  sign: RequestSigner;
  random?: () => number;
}

const SEND_TIMEOUT_MS = 10_000;
// While one notifier sends, no other may; past this the sender is presumed dead.
const PROCESSING_LEASE_MS = SEND_TIMEOUT_MS + 20_000;

interface ClaimedDelivery {
  id: string;
  workspace_id: string;
  execution_id: string;
  url: string;
  payload: unknown;
  attempts: number;
}

export type DeliveryOutcome = { done: 'sent' | 'failed' | 'retry' } | { skip: string };

/**
 * One attempt at a delivery: claim it (pending and due, or processing with an expired lease),
 * POST the signed payload, and record sent, failed, or the time of the next attempt.
 */
export async function sendDelivery(deps: DeliveryDeps, deliveryId: string): Promise<DeliveryOutcome> {
  const now = deps.clock.now();
  const leaseUntil = new Date(now.getTime() + PROCESSING_LEASE_MS);
  const [claimed] = await deps.db.$queryRaw<ClaimedDelivery[]>`
    UPDATE deliveries
       SET status = 'processing', attempts = attempts + 1, next_attempt_at = ${leaseUntil}, updated_at = ${now}
     WHERE id = ${deliveryId} AND kind = 'callback'
       AND ((status = 'pending' AND (next_attempt_at IS NULL OR next_attempt_at <= ${now}))
         OR (status = 'processing' AND next_attempt_at < ${now}))
    RETURNING id, workspace_id, execution_id, url, payload, attempts`;
  if (!claimed) return { skip: 'delivery is not due, already handled, or gone' };

  const body = JSON.stringify(claimed.payload);
  let signature: Record<string, string>;
  try {
    // Signed like the execution's own requests (D5): its id is the message id on every try.
    signature = await deps.sign(claimed.workspace_id, claimed.execution_id, body);
  } catch (error) {
    if (!(error instanceof DecryptionError)) throw error;
    await deps.db.delivery.update({ where: { id: claimed.id }, data: { status: 'failed', lastError: `cannot sign: ${error.message}`, nextAttemptAt: null } });
    return { done: 'failed' };
  }
  const result = await deps.http.send({
    url: claimed.url,
    workspaceId: claimed.workspace_id,
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'cron-service-callback',
      [EXECUTION_ID_HEADER]: claimed.execution_id,
      ...signature,
    },
    body,
    timeoutMs: SEND_TIMEOUT_MS,
  });
  const done = deps.clock.now();
  const verdict = decideDelivery(result, claimed.attempts, DELIVERY_ATTEMPTS, done, deps.random);
  const lastStatusCode = result.kind === 'response' ? result.statusCode : null;
  const retryAt = verdict.outcome === 'retry' ? new Date(done.getTime() + verdict.delayMs) : null;
  await deps.db.delivery.update({
    where: { id: claimed.id },
    data: {
      status: verdict.outcome === 'retry' ? 'pending' : verdict.outcome,
      lastStatusCode,
      lastError: verdict.outcome === 'sent' ? null : verdict.error,
      nextAttemptAt: retryAt,
      sentAt: verdict.outcome === 'sent' ? done : null,
    },
  });
  if (retryAt) await deps.queues.enqueueDeliveries([{ deliveryId: claimed.id, attempt: claimed.attempts + 1, runAt: retryAt }]);
  return { done: verdict.outcome };
}
