import { executionEvent } from './execution-event.js';
import { newId } from '../ids/ids.js';
import type { DeliveryKind, EventType, RuleEvent } from '@cronsvc/contracts';
import { CALLBACK_OF, PAYLOAD_EVENT, RULE_EVENTS_OF } from './notification-events.js';
import type { ExecutionContext, NotificationPayload } from './notification-message.js';

/** An outbox row as the relay takes it. */
export interface OutboxEvent {
  workspaceId: string;
  type: EventType;
  executionId: string | null;
  monitorId: string | null;
  /** fire.missed: the job whose slots were missed or skipped (such an event has no execution). */
  jobId: string | null;
  payload: NotificationPayload | null;
  createdAt: Date;
}

/** The execution an event is about, with its job's callback URLs and mute setting. */
export interface EventExecution {
  id: string;
  jobId: string;
  jobName: string;
  status: string;
  scheduledFor: Date | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  durationMs: number | null;
  attemptCount: number;
  finalResponse: { statusCode?: number; bodyPreview?: string | null } | null;
  finalOutput: unknown;
  errorClass: string | null;
  errorMessage: string | null;
  onSuccessUrl: string | null;
  onFailureUrl: string | null;
  muted: boolean;
}

export interface RuleRow {
  id: string;
  channelId: string;
  /** Who the channel's messages reach (its destination key, or its own id without one). */
  destination: string;
  event: RuleEvent;
  jobId: string | null;
  monitorId: string | null;
}

/** A delivery row to insert. */
export interface NewDelivery {
  id: string;
  workspaceId: string;
  executionId: string | null;
  monitorId: string | null;
  kind: DeliveryKind;
  channelId: string | null;
  ruleId: string | null;
  event: RuleEvent;
  url: string | null;
  payload: NotificationPayload;
  context: ExecutionContext | null;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

function executionPayload(exe: EventExecution, at: Date): NotificationPayload {
  return executionEvent({
    status: exe.status as 'succeeded' | 'failed',
    job: { id: exe.jobId, name: exe.jobName },
    executionId: exe.id,
    statusCode: exe.finalResponse?.statusCode ?? null,
    bodyPreview: exe.finalResponse?.bodyPreview ?? null,
    errorClass: exe.errorClass,
    output: exe.finalOutput,
    at: exe.finishedAt ?? at,
  });
}

function executionContext(exe: EventExecution, publicBaseUrl: string): ExecutionContext {
  return {
    scheduled_for: iso(exe.scheduledFor),
    started_at: iso(exe.startedAt),
    finished_at: iso(exe.finishedAt),
    duration_ms: exe.durationMs,
    attempts: exe.attemptCount,
    error_message: exe.errorMessage,
    execution_url: `${publicBaseUrl}/v1/executions/${exe.id}`,
  };
}

/**
 * The deliveries one event owes: its execution's callback (whatever the mute setting: callbacks
 * are not notifications), and one per rule of its job or monitor that subscribes to it, unless
 * the job mutes notifications; rules of the same event on channels with one destination share one. `rules` may hold other owners' rules; only this event's owner's
 * count. An event about an execution that is gone (its job was deleted) owes nothing.
 */
export function deliveriesFor(event: OutboxEvent, execution: EventExecution | undefined, rules: readonly RuleRow[], publicBaseUrl: string): NewDelivery[] {
  if (event.executionId !== null && !execution) return [];
  const payload = event.payload ?? (execution ? executionPayload(execution, event.createdAt) : null);
  if (payload === null) return [];
  const context = execution ? executionContext(execution, publicBaseUrl) : null;
  const base = { workspaceId: event.workspaceId, executionId: event.executionId, monitorId: event.monitorId, context };
  const out: NewDelivery[] = [];

  const callback = CALLBACK_OF[event.type];
  const callbackUrl = callback && execution ? execution[callback.urlOf] : null;
  if (callback && callbackUrl) {
    out.push({ ...base, id: newId('dlv'), kind: 'callback', channelId: null, ruleId: null, event: callback.event, url: callbackUrl, payload });
  }
  if (execution?.muted) return out;

  const wanted = RULE_EVENTS_OF[event.type];
  const owns = (r: RuleRow) => {
    if (execution) return r.jobId === execution.jobId;
    if (event.jobId !== null) return r.jobId === event.jobId;
    return event.monitorId !== null && r.monitorId === event.monitorId;
  };
  // Rules of one event whose channels reach the same destination owe it one message, not one each.
  const reached = new Set<string>();
  for (const rule of rules) {
    if (!owns(rule) || !wanted.includes(rule.event)) continue;
    const key = `${rule.event} ${rule.destination}`;
    if (reached.has(key)) continue;
    reached.add(key);
    const named = PAYLOAD_EVENT[rule.event];
    out.push({
      ...base,
      id: newId('dlv'),
      kind: 'channel',
      channelId: rule.channelId,
      ruleId: rule.id,
      event: rule.event,
      url: null,
      payload: payload.event === named ? payload : ({ ...payload, event: named } as NotificationPayload),
    });
  }
  return out;
}
