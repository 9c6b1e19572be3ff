import { executionEvent } from './execution-event.js';
import { newId } from '../ids/ids.js';
import type { DeliveryKind, EventType, RuleEvent } from '@cronsvc/contracts';
import { CALLBACK_OF, JOB_RECOVERED, PAYLOAD_EVENT, RULE_EVENTS_OF } from './notification-events.js';
import { decideAlert, type AlertInput, type AlertState, type StreakFacts } from './alert-policy.js';
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
  /** Execution events of a job whose streaks are counted: its place in the streak. */
  streak: StreakFacts | null;
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

/**
 * What the relay knows of its rules while it takes a batch of events in order: each rule's alert
 * state (read under the rules' row locks and changed here as events go by), and how to make a
 * public snooze link for a rule.
 */
export interface AlertContext {
  states: Map<string, AlertState>;
  now: Date;
  snoozeUrl: (ruleId: string) => string;
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
export function deliveriesFor(event: OutboxEvent, execution: EventExecution | undefined, rules: readonly RuleRow[], publicBaseUrl: string, alerts?: AlertContext): NewDelivery[] {
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
    const decided = decide(event, rule, rules, alerts);
    if (!decided.deliver) continue;
    const key = `${rule.event} ${rule.destination}`;
    if (reached.has(key)) continue;
    reached.add(key);
    const named = rule.event === 'on_recovery' && rule.jobId !== null ? JOB_RECOVERED : PAYLOAD_EVENT[rule.event];
    const extras: Record<string, unknown> = {};
    // An approval's payload is the request for a decision, not a report: it stays as written.
    if (alerts && event.type !== 'approval.required') extras.held_back = decided.heldBack;
    if (alerts && (rule.event === 'on_failure' || rule.event === 'on_down')) extras.snooze_url = alerts.snoozeUrl(rule.id);
    if (named === JOB_RECOVERED && event.streak) extras.consecutive_failures = event.streak.failures;
    out.push({
      ...base,
      id: newId('dlv'),
      kind: 'channel',
      channelId: rule.channelId,
      ruleId: rule.id,
      event: rule.event,
      url: null,
      payload: ({ ...payload, event: named, ...extras }) as NotificationPayload,
    });
  }
  return out;
}

/** What a rule's alert state makes of the event (docs/NOTIFICATIONS.md, "Quiet but safe alerts"); without a context, every event but a recovery is delivered. */
function decide(event: OutboxEvent, rule: RuleRow, rules: readonly RuleRow[], alerts: AlertContext | undefined): { deliver: boolean; heldBack: number } {
  const jobRecovery = rule.event === 'on_recovery' && rule.jobId !== null;
  if (!alerts) return { deliver: !jobRecovery, heldBack: 0 };
  const state = alerts.states.get(rule.id);
  if (!state) return { deliver: !jobRecovery, heldBack: 0 };
  let input: AlertInput = { kind: 'other' };
  if (rule.event === 'on_failure' && event.type === 'execution.failed') input = { kind: 'failure', streak: event.streak };
  else if (jobRecovery) {
    const epoch = event.streak?.epoch;
    const alertedStreak = rules.some((r) => r.jobId === rule.jobId && r.event === 'on_failure' && epoch !== undefined && alerts.states.get(r.id)?.alertedEpoch === epoch);
    input = { kind: 'recovery', streak: event.streak, alertedStreak };
  }
  const decision = decideAlert(state, input, alerts.now);
  alerts.states.set(rule.id, decision.state);
  return decision.deliver ? { deliver: true, heldBack: decision.heldBack } : { deliver: false, heldBack: 0 };
}
