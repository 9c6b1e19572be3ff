import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { inTransaction } from '../db/client.js';
import { columnArrays, columnNames, paramAfter, unnestFrom, type Column } from '../db/columns.js';
import type { Deps } from '../deps/deps.js';
import { deliveriesFor, type AlertContext, type EventExecution, type NewDelivery, type OutboxEvent, type RuleRow } from './fan-out.js';
import type { AlertState } from './alert-policy.js';
import { hashToken } from '../ids/ids.js';
import { SNOOZE_LINK_TTL_MS, snoozeLinkUrl } from './snooze.js';
import type { EventType, RuleEvent } from '@cronsvc/contracts';
import type { NotificationPayload } from './notification-message.js';

// Takes the oldest events nobody else is relaying; removing them commits with their deliveries.
const TAKE_SQL = `
  DELETE FROM events WHERE id IN (SELECT id FROM events ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
  RETURNING id, workspace_id, type, execution_id, monitor_id, job_id, payload, streak_failures, streak_epoch, created_at`;

const EXECUTIONS_SQL = `
  SELECT e.id, e.job_id, e.job_name, e.status, e.scheduled_for, e.started_at, e.finished_at, e.duration_ms,
         e.attempt_count, e.final_response, e.final_output, e.error_class, e.error_message,
         j.on_success_url, j.on_failure_url, j.notification_override
    FROM executions e JOIN jobs j ON j.id = e.job_id
   WHERE e.id = ANY($1::text[])`;

// The rules' row locks serialize relays deciding for the same rules (always taken in this order).
const RULES_SQL = `
  SELECT r.id, r.channel_id, COALESCE(c.destination_key, r.channel_id) AS destination, r.event, r.job_id, r.monitor_id,
         r.after_consecutive_failures, r.realert_after_minutes, r.snoozed_until, r.last_delivered_at, r.held_back, r.alerted_epoch
    FROM notification_rules AS r JOIN notification_channels AS c ON c.id = r.channel_id
   WHERE r.job_id = ANY($1::text[]) OR r.monitor_id = ANY($2::text[])
   ORDER BY r.created_at, r.id
     FOR UPDATE OF r`;

interface RuleStateRow {
  id: string;
  channel_id: string;
  destination: string;
  event: RuleEvent;
  job_id: string | null;
  monitor_id: string | null;
  after_consecutive_failures: number;
  realert_after_minutes: number | null;
  snoozed_until: Date | null;
  last_delivered_at: Date | null;
  held_back: number;
  alerted_epoch: string | null;
}

interface StateWrite {
  id: string;
  state: AlertState;
}

const STATE_COLUMNS: readonly Column<StateWrite>[] = [
  { name: 'id', type: 'text', value: (w) => w.id },
  { name: 'last_delivered_at', type: 'timestamptz', value: (w) => w.state.lastDeliveredAt },
  { name: 'held_back', type: 'int', value: (w) => w.state.heldBack },
  { name: 'alerted_epoch', type: 'text', value: (w) => (w.state.alertedEpoch === null ? null : w.state.alertedEpoch.toString()) },
];

const STATE_SQL = `
  UPDATE notification_rules AS r SET last_delivered_at = t.last_delivered_at, held_back = t.held_back, alerted_epoch = t.alerted_epoch::bigint
    FROM ${unnestFrom(STATE_COLUMNS, 't')} WHERE r.id = t.id`;

interface SnoozeToken {
  hash: string;
  ruleId: string;
  expiresAt: Date;
}

const TOKEN_COLUMNS: readonly Column<SnoozeToken>[] = [
  { name: 'token_hash', type: 'text', value: (t) => t.hash },
  { name: 'rule_id', type: 'text', value: (t) => t.ruleId },
  { name: 'expires_at', type: 'timestamptz', value: (t) => t.expiresAt },
];

const TOKENS_SQL = `INSERT INTO rule_snooze_tokens (${columnNames(TOKEN_COLUMNS)}) SELECT * FROM ${unnestFrom(TOKEN_COLUMNS, 't')}`;

const toState = (r: RuleStateRow): AlertState => ({
  event: r.event,
  afterConsecutiveFailures: r.after_consecutive_failures,
  realertAfterMinutes: r.realert_after_minutes,
  snoozedUntil: r.snoozed_until,
  lastDeliveredAt: r.last_delivered_at,
  heldBack: r.held_back,
  alertedEpoch: r.alerted_epoch === null ? null : BigInt(r.alerted_epoch),
});

const DELIVERY_COLUMNS: readonly Column<NewDelivery>[] = [
  { name: 'id', type: 'text', value: (d) => d.id },
  { name: 'workspace_id', type: 'text', value: (d) => d.workspaceId },
  { name: 'execution_id', type: 'text', value: (d) => d.executionId },
  { name: 'monitor_id', type: 'text', value: (d) => d.monitorId },
  { name: 'kind', type: 'text', value: (d) => d.kind },
  { name: 'channel_id', type: 'text', value: (d) => d.channelId },
  { name: 'rule_id', type: 'text', value: (d) => d.ruleId },
  { name: 'event', type: 'text', value: (d) => d.event },
  { name: 'url', type: 'text', value: (d) => d.url },
  { name: 'payload', type: 'jsonb', value: (d) => d.payload },
  { name: 'context', type: 'jsonb', value: (d) => d.context },
];

const INSERT_SQL = `
  INSERT INTO deliveries (${columnNames(DELIVERY_COLUMNS)}, status, next_attempt_at, created_at, updated_at)
  SELECT t.*, 'pending', ${paramAfter(DELIVERY_COLUMNS)}::timestamptz, ${paramAfter(DELIVERY_COLUMNS)}::timestamptz, ${paramAfter(DELIVERY_COLUMNS)}::timestamptz
    FROM ${unnestFrom(DELIVERY_COLUMNS, 't')}`;

interface EventRow {
  id: string;
  workspace_id: string;
  type: EventType;
  execution_id: string | null;
  monitor_id: string | null;
  job_id: string | null;
  payload: NotificationPayload | null;
  streak_failures: number | null;
  streak_epoch: string | null;
  created_at: Date;
}

interface ExecutionRow {
  id: string;
  job_id: string;
  job_name: string;
  status: string;
  scheduled_for: Date | null;
  started_at: Date | null;
  finished_at: Date | null;
  duration_ms: number | null;
  attempt_count: number;
  final_response: EventExecution['finalResponse'];
  final_output: unknown;
  error_class: string | null;
  error_message: string | null;
  on_success_url: string | null;
  on_failure_url: string | null;
  notification_override: string;
}

const toEvent = (r: EventRow): OutboxEvent => ({
  workspaceId: r.workspace_id,
  type: r.type,
  executionId: r.execution_id,
  monitorId: r.monitor_id,
  jobId: r.job_id,
  payload: r.payload,
  streak: r.streak_failures === null || r.streak_epoch === null ? null : { failures: r.streak_failures, epoch: BigInt(r.streak_epoch) },
  createdAt: r.created_at,
});

const toExecution = (r: ExecutionRow): EventExecution => ({
  id: r.id,
  jobId: r.job_id,
  jobName: r.job_name,
  status: r.status,
  scheduledFor: r.scheduled_for,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  durationMs: r.duration_ms,
  attemptCount: r.attempt_count,
  finalResponse: r.final_response,
  finalOutput: r.final_output,
  errorClass: r.error_class,
  errorMessage: r.error_message,
  onSuccessUrl: r.on_success_url,
  onFailureUrl: r.on_failure_url,
  muted: r.notification_override === 'mute_all',
});

async function insertDeliveries(client: pg.PoolClient, rows: NewDelivery[], at: Date): Promise<void> {
  if (rows.length === 0) return;
  await client.query({ name: 'relay-insert-deliveries', text: INSERT_SQL, values: [...columnArrays(DELIVERY_COLUMNS, rows), at.toISOString()] });
}

/** One transaction: take up to `limit` events, write the deliveries they owe. */
async function relayBatch(deps: Pick<Deps, 'pool' | 'clock' | 'config'>, limit: number): Promise<{ events: number; deliveries: NewDelivery[] }> {
  return inTransaction(deps.pool, async (client) => {
    const { rows: taken } = await client.query<EventRow>({ name: 'relay-take-events', text: TAKE_SQL, values: [limit] });
    if (taken.length === 0) return { events: 0, deliveries: [] };
    // In the order they were written: a streak's failures before its recovery.
    const events = taken.sort((a, b) => Number(BigInt(a.id) - BigInt(b.id))).map(toEvent);
    const executionIds = [...new Set(events.flatMap((e) => (e.executionId ? [e.executionId] : [])))];
    const executions = new Map<string, EventExecution>();
    if (executionIds.length > 0) {
      const { rows } = await client.query<ExecutionRow>({ name: 'relay-executions', text: EXECUTIONS_SQL, values: [executionIds] });
      for (const r of rows) executions.set(r.id, toExecution(r));
    }
    const jobIds = [...new Set([...[...executions.values()].map((e) => e.jobId), ...events.flatMap((e) => (e.jobId ? [e.jobId] : []))])];
    const monitorIds = [...new Set(events.flatMap((e) => (e.monitorId ? [e.monitorId] : [])))];
    const { rows: ruleRows } = await client.query<RuleStateRow>({ name: 'relay-rules', text: RULES_SQL, values: [jobIds, monitorIds] });
    const rules: RuleRow[] = ruleRows.map((r) => ({ id: r.id, channelId: r.channel_id, destination: r.destination, event: r.event, jobId: r.job_id, monitorId: r.monitor_id }));
    const now = deps.clock.now();
    const before = new Map(ruleRows.map((r) => [r.id, toState(r)]));
    const tokens: SnoozeToken[] = [];
    const alerts: AlertContext = {
      states: new Map(before),
      now,
      snoozeUrl: (ruleId) => {
        const token = randomBytes(18).toString('base64url');
        tokens.push({ hash: hashToken(token), ruleId, expiresAt: new Date(now.getTime() + SNOOZE_LINK_TTL_MS) });
        return snoozeLinkUrl(deps.config.publicBaseUrl, token);
      },
    };
    const byOwner = new Map<string, RuleRow[]>();
    for (const rule of rules) {
      const owner = rule.jobId ?? rule.monitorId ?? '';
      byOwner.set(owner, [...(byOwner.get(owner) ?? []), rule]);
    }
    const deliveries = events.flatMap((event) => {
      const execution = event.executionId ? executions.get(event.executionId) : undefined;
      const owner = execution?.jobId ?? event.jobId ?? event.monitorId ?? '';
      return deliveriesFor(event, execution, byOwner.get(owner) ?? [], deps.config.publicBaseUrl, alerts);
    });
    const changed = [...alerts.states].filter(([id, state]) => state !== before.get(id)).map(([id, state]) => ({ id, state }));
    if (changed.length > 0) await client.query({ name: 'relay-rule-states', text: STATE_SQL, values: columnArrays(STATE_COLUMNS, changed) });
    if (tokens.length > 0) await client.query({ name: 'relay-snooze-tokens', text: TOKENS_SQL, values: columnArrays(TOKEN_COLUMNS, tokens) });
    await insertDeliveries(client, deliveries, now);
    return { events: taken.length, deliveries };
  });
}

export const RELAY_BATCH = 500;

/**
 * Turns outbox events into deliveries (docs/adr/009), one batch per transaction, and after each
 * commit hands the new deliveries to `dispatch` (the notifier sends their first attempt itself)
 * or, without one, to the deliveries queue. Either is best effort: the delivery reconciler queues
 * pending deliveries that nobody sent. Returns how many events it took; stops after a batch that
 * was not full.
 */
export async function relayEvents(
  deps: Pick<Deps, 'pool' | 'clock' | 'config' | 'queues' | 'logger'>,
  options: { batchSize?: number; maxBatches?: number; dispatch?: (deliveryIds: string[]) => void } = {},
): Promise<number> {
  const limit = options.batchSize ?? RELAY_BATCH;
  let total = 0;
  for (let batch = 0; batch < (options.maxBatches ?? 20); batch++) {
    const { events, deliveries } = await relayBatch(deps, limit);
    total += events;
    if (deliveries.length > 0 && options.dispatch) options.dispatch(deliveries.map((d) => d.id));
    else if (deliveries.length > 0) {
      const now = deps.clock.now();
      await deps.queues
        .enqueueDeliveries(deliveries.map((d) => ({ deliveryId: d.id, attempt: 1, runAt: now })))
        .catch((error) => deps.logger.warn('queueing new deliveries failed; the reconciler will queue them', { count: deliveries.length, error: (error as Error).message }));
    }
    if (events < limit) break;
  }
  return total;
}
