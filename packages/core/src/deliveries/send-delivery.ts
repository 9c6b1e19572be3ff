import type { SqlPool } from '../db/client.js';
import { columnArrays, unnestFrom, type Column } from '../db/columns.js';
import { GroupCommit } from '../db/group-commit.js';
import { perPool } from '../db/per-pool.js';
import { whileUnavailable } from '../db/while-unavailable.js';
import type { HttpClient } from '../http/http-client.js';
import { CHANNEL_ADAPTERS, type SendContext, type Sender } from '../notifications/adapters/index.js';
import { resolveChannelConfig } from '../notifications/channel-credentials.js';
import type { Mailer } from '../notifications/mailer.js';
import type { ExecutionContext, NotificationMessage, NotificationPayload } from '../notifications/notification-message.js';
import type { ChannelType, RuleEvent } from '@cronsvc/contracts';
import type { Deps } from '../deps/deps.js';
import type { RateLimiter } from '../workspaces/rate-limit.js';
import { DecryptionError } from '../secrets/crypto.js';
import { signingKeysFrom } from '../signatures/signing-keys.js';
import { callbackSender } from './callback-sender.js';
import { decideDelivery, type DeliveryVerdict } from '../notifications/delivery-policy.js';
import { sendMessage, SEND_TIMEOUT_MS } from '../notifications/send-message.js';

export interface DeliveryDeps extends Deps {
  http: HttpClient;
  /** Null when SMTP_URL is not set: email deliveries then fail with a clear error. */
  mailer: Mailer | null;
  random?: () => number;
  /**
   * Counts the notification messages of a workspace (DELIVERY_RATE_LIMIT_PER_MINUTE), shared by
   * every notifier; callbacks are not counted, one per execution at most. Without one, no limit.
   */
  channelLimiter?: RateLimiter;
  /** The claiming notifier's heartbeat id, which its claims carry for a takeover when it dies. */
  workerId?: string;
}

// While one notifier sends, no other may; past this the sender is presumed dead.
const PROCESSING_LEASE_MS = SEND_TIMEOUT_MS + 20_000;

interface ClaimedDelivery {
  id: string;
  workspace_id: string;
  kind: string;
  channel_id: string | null;
  execution_id: string | null;
  event: RuleEvent;
  url: string | null;
  payload: NotificationPayload;
  context: ExecutionContext | null;
  attempts: number;
  channel_type: ChannelType | null;
  channel_config: Record<string, unknown> | null;
  channel_credentials: string | null;
  signing_key: string;
  previous_signing_key: string | null;
  signing_key_rotated_at: Date | null;
}

interface ClaimInput {
  id: string;
  now: Date;
  worker: string | null;
}

interface RecordInput {
  id: string;
  attempts: number;
  status: string;
  statusCode: number | null;
  error: string | null;
  nextAttemptAt: Date | null;
  sentAt: Date | null;
  now: Date;
  /** Not sent: held back to `nextAttemptAt` by the workspace's limit, without using an attempt. */
  held?: boolean;
}

const CLAIM_COLUMNS: readonly Column<ClaimInput>[] = [
  { name: 'id', type: 'text', value: (i) => i.id },
  { name: 'now', type: 'timestamptz', value: (i) => i.now },
  { name: 'lease_until', type: 'timestamptz', value: (i) => new Date(i.now.getTime() + PROCESSING_LEASE_MS) },
  { name: 'worker', type: 'text', value: (i) => i.worker },
];

const RECORD_COLUMNS: readonly Column<RecordInput>[] = [
  { name: 'id', type: 'text', value: (r) => r.id },
  { name: 'attempts', type: 'int', value: (r) => r.attempts },
  { name: 'status', type: 'text', value: (r) => r.status },
  { name: 'status_code', type: 'int', value: (r) => r.statusCode },
  { name: 'error', type: 'text', value: (r) => r.error },
  { name: 'next_attempt_at', type: 'timestamptz', value: (r) => r.nextAttemptAt },
  { name: 'sent_at', type: 'timestamptz', value: (r) => r.sentAt },
  { name: 'now', type: 'timestamptz', value: (r) => r.now },
  { name: 'held', type: 'boolean', value: (r) => r.held ?? false },
];

// Takes deliveries that are pending and due, or processing with an expired lease (their sender
// died), counts the attempt and leases them; returns with each what sending it needs.
const CLAIM_SQL = `
  WITH claimed AS (
    UPDATE deliveries AS d
       SET status = 'processing', attempts = d.attempts + 1, next_attempt_at = v.lease_until, updated_at = v.now, claimed_by = v.worker
      FROM ${unnestFrom(CLAIM_COLUMNS, 'v')}
     WHERE d.id = v.id
       AND ((d.status = 'pending' AND (d.next_attempt_at IS NULL OR d.next_attempt_at <= v.now))
         OR (d.status = 'processing' AND d.next_attempt_at < v.now))
    RETURNING d.id, d.workspace_id, d.kind, d.channel_id, d.execution_id, d.event, d.url, d.payload, d.context, d.attempts
  )
  SELECT c.*, ch.type AS channel_type, ch.config AS channel_config, ch.credentials AS channel_credentials,
         w.signing_key, w.previous_signing_key, w.signing_key_rotated_at
    FROM claimed AS c
    JOIN workspaces AS w ON w.id = c.workspace_id
    LEFT JOIN notification_channels AS ch ON ch.id = c.channel_id`;

// Only the holder of the attempt records it: a sender whose lease ran out and was taken over records
// nothing. A held-back attempt (the workspace's minute is used up) gives its attempt back and keeps
// the last outcome.
const RECORD_SQL = `
  UPDATE deliveries AS d
     SET status = v.status, next_attempt_at = v.next_attempt_at, sent_at = v.sent_at, updated_at = v.now,
         last_status_code = CASE WHEN v.held THEN d.last_status_code ELSE v.status_code END,
         last_error = CASE WHEN v.held THEN d.last_error ELSE v.error END,
         attempts = CASE WHEN v.held THEN d.attempts - 1 ELSE d.attempts END
    FROM ${unnestFrom(RECORD_COLUMNS, 'v')}
   WHERE d.id = v.id AND d.status = 'processing' AND d.attempts = v.attempts`;

/** Claims and recordings of concurrent sends leave together, one statement per batch (one batcher per pool). */
const batchers = perPool((pool: SqlPool) => ({
  claims: new GroupCommit<ClaimInput, ClaimedDelivery | null>(
    async (items) => {
      const { rows } = await pool.query<ClaimedDelivery>({
        name: 'claim-deliveries',
        text: CLAIM_SQL,
        values: columnArrays(CLAIM_COLUMNS, items),
      });
      const byId = new Map(rows.map((r) => [r.id, r]));
      return items.map((i) => {
        const row = byId.get(i.id) ?? null;
        byId.delete(i.id);
        return row;
      });
    },
    { maxBatch: 500, maxInFlight: 2 },
  ),
  records: new GroupCommit<RecordInput, void>(
    async (items) => {
      await pool.query({ name: 'record-deliveries', text: RECORD_SQL, values: columnArrays(RECORD_COLUMNS, items) });
      return items.map(() => undefined);
    },
    { maxBatch: 500, maxInFlight: 2 },
  ),
}));

/** What to send a claimed delivery with, or why it cannot be sent at all. */
type Target = { sender: Sender<unknown, unknown>; config: unknown; secretValues: string[] } | { error: string };

async function targetOf(deps: DeliveryDeps, d: ClaimedDelivery, now: Date): Promise<Target> {
  try {
    if (d.kind === 'callback') {
      const keys = signingKeysFrom(
        { workspaceId: d.workspace_id, signingKey: d.signing_key, previousSigningKey: d.previous_signing_key, signingKeyRotatedAt: d.signing_key_rotated_at },
        deps.config.secretsEncryptionKey,
        now,
      );
      return { sender: callbackSender as Sender<unknown, unknown>, config: { url: d.url, executionId: d.execution_id, keys }, secretValues: [] };
    }
    if (d.channel_id === null || d.channel_type === null || d.channel_config === null || d.channel_credentials === null) return { error: 'the channel was deleted' };
    const resolved = await resolveChannelConfig(deps, { id: d.channel_id, workspaceId: d.workspace_id }, d.channel_config, d.channel_credentials);
    if ('missing' in resolved) return { error: `secret ${resolved.missing.map((n) => `"${n}"`).join(', ')} does not exist in this workspace` };
    return { sender: CHANNEL_ADAPTERS[d.channel_type] as Sender<unknown, unknown>, config: resolved.config, secretValues: resolved.secretValues };
  } catch (error) {
    // Stored under another SECRETS_ENCRYPTION_KEY: no retry can open it.
    if (error instanceof DecryptionError) return { error: `a credential cannot be decrypted: ${error.message}` };
    throw error;
  }
}

export type DeliveryOutcome = { done: DeliveryVerdict['outcome'] } | { skip: string } | { heldUntil: Date };

/**
 * One attempt at a delivery: claim it, send it through its channel's adapter (or as a callback),
 * record sent, failed, or the time of the next attempt, and queue that attempt.
 */
export async function sendDelivery(deps: DeliveryDeps, deliveryId: string): Promise<DeliveryOutcome> {
  const { claims, records } = batchers(deps.pool);
  const claimed = await claims.add({ id: deliveryId, now: deps.clock.now(), worker: deps.workerId ?? null });
  if (!claimed) return { skip: 'delivery is not due, already handled, or gone' };
  if (claimed.kind === 'channel' && deps.channelLimiter) {
    const limit = await deps.channelLimiter.hit(`deliveries:${claimed.workspace_id}`);
    if (limit && !limit.allowed) {
      // One failure fanned out to many channels, or many failures at once: the rest of this
      // workspace's messages wait for the next minute instead of flooding their receivers.
      const now = deps.clock.now();
      const heldUntil = new Date(now.getTime() + limit.resetSeconds * 1000);
      await records.add({ id: claimed.id, attempts: claimed.attempts, status: 'pending', statusCode: null, error: null, nextAttemptAt: heldUntil, sentAt: null, now, held: true });
      return { heldUntil };
    }
  }

  const now = deps.clock.now();
  const target = await targetOf(deps, claimed, now);
  let verdict: DeliveryVerdict;
  let statusCode: number | null = null;
  if ('error' in target) {
    verdict = { outcome: 'failed', error: target.error };
  } else {
    const context: SendContext = { http: deps.http, mailer: deps.mailer, workspaceId: claimed.workspace_id, messageId: claimed.id, timeoutMs: SEND_TIMEOUT_MS, chatCApiBase: deps.config.chatCApiBase, now };
    const message: NotificationMessage = { event: claimed.event, payload: claimed.payload, context: claimed.context };
    const { result, classification } = await sendMessage(target.sender, message, target.config, context, target.secretValues);
    statusCode = result.statusCode;
    verdict = decideDelivery(result, classification, claimed.attempts, deps.random);
  }
  const done = deps.clock.now();
  const retryAt = verdict.outcome === 'retry' ? new Date(done.getTime() + verdict.delayMs) : null;
  // Sent already: a database that is restarting is waited for, while the lease holds, rather than
  // the message sent again by the next claim. A repeat whose first try committed changes nothing.
  const sendStartedAt = now.getTime();
  const record = () => records.add({
    id: claimed.id,
    attempts: claimed.attempts,
    status: verdict.outcome === 'retry' ? 'pending' : verdict.outcome,
    statusCode,
    error: verdict.outcome === 'sent' ? null : verdict.error,
    nextAttemptAt: retryAt,
    sentAt: verdict.outcome === 'sent' ? done : null,
    now: done,
  });
  await whileUnavailable(record, { forMs: PROCESSING_LEASE_MS - (Date.now() - sendStartedAt) });
  if (retryAt) await deps.queues.enqueueDeliveries([{ deliveryId: claimed.id, attempt: claimed.attempts + 1, runAt: retryAt }]);
  return { done: verdict.outcome };
}
