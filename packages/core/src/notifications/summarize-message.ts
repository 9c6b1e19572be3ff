import type { ExecutionEvent } from './execution-event.js';
import type { FireMissedPayload } from '@cronsvc/contracts';
import { isApprovalEvent, isMissedFiresEvent, isMonitorEvent, type ApprovalEvent, type MonitorEvent, type NotificationMessage } from './notification-message.js';

export type Tone = 'success' | 'failure' | 'warning';

/**
 * A notification as people read it, whatever the channel: what happened, the facts as label and
 * value, and where to go next. Values are raw user text; each format escapes them its own way.
 */
export interface MessageSummary {
  tone: Tone;
  /** The payload's event name, e.g. execution.failed. */
  eventName: string;
  title: string;
  fields: { label: string; value: string }[];
  links: { label: string; url: string }[];
  /** The response body preview of an execution, when it has one. */
  output: string | null;
  timestamp: string;
}

/** 850 ms, 12.3 s, 2 min 5 s, 1 h 3 min. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return formatSeconds(Math.round(ms / 1000));
}

/** 45 s, 5 min, 1 h 30 min, 2 d 4 h: the two largest units that are not zero. */
export function formatSeconds(total: number): string {
  const units: [string, number][] = [['d', 86_400], ['h', 3_600], ['min', 60], ['s', 1]];
  const parts: string[] = [];
  let rest = total;
  for (const [name, size] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(`${n} ${name}`);
  }
  return parts.length > 0 ? parts.slice(0, 2).join(' ') : '0 s';
}

/** 2030-01-02 03:04:05 UTC, or "-" when there is no time. */
export const formatTime = (iso: string | null | undefined) => (iso ? iso.replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC') : '-');

/** What a rule's alert state adds to any message: how many events it held back, and a snooze link. */
interface AlertExtras {
  held_back?: number;
  snooze_url?: string;
}

function withAlertExtras(summary: MessageSummary, payload: AlertExtras): MessageSummary {
  const fields = [...summary.fields];
  const links = [...summary.links];
  if (payload.held_back && payload.held_back > 0) {
    fields.push({ label: 'Held back', value: `${payload.held_back} earlier notification${payload.held_back === 1 ? '' : 's'} of this rule not sent` });
  }
  if (payload.snooze_url) links.push({ label: 'Snooze 1 h', url: payload.snooze_url });
  return { ...summary, fields, links };
}

function executionSummary(message: NotificationMessage, payload: ExecutionEvent): MessageSummary {
  const { execution, job } = payload;
  const succeeded = execution.status === 'succeeded';
  const recovered = payload.event === 'execution.recovered';
  const verb = recovered ? 'recovered' : message.event === 'on_completion' ? `finished (${execution.status})` : execution.status;
  const context = message.context;
  const status = execution.status_code === null ? execution.status : `${execution.status} (HTTP ${execution.status_code})`;
  const fields = [
    { label: 'Job', value: job.name },
    { label: 'Status', value: status },
    { label: 'Scheduled', value: formatTime(context?.scheduled_for) },
    { label: 'Started', value: formatTime(context?.started_at) },
    { label: 'Finished', value: formatTime(context?.finished_at) },
    { label: 'Duration', value: context?.duration_ms === null || context?.duration_ms === undefined ? '-' : formatDuration(context.duration_ms) },
    { label: 'Attempts', value: context ? String(context.attempts) : '-' },
  ];
  if (recovered && payload.consecutive_failures) fields.push({ label: 'Failed runs before', value: String(payload.consecutive_failures) });
  if (execution.error_class) fields.push({ label: 'Error', value: execution.error_class });
  if (context?.error_message) fields.push({ label: 'Error message', value: context.error_message });
  return {
    tone: succeeded ? 'success' : 'failure',
    eventName: payload.event,
    title: `Job "${job.name}" ${verb}`,
    fields,
    links: context ? [{ label: 'View execution', url: context.execution_url }] : [],
    output: execution.body_preview ?? null,
    timestamp: payload.timestamp,
  };
}

function approvalSummary(payload: ApprovalEvent): MessageSummary {
  const { approval, job } = payload;
  const fields = [
    { label: 'Job', value: job.name },
    { label: 'Step', value: `${approval.step_id} (step ${approval.step_index + 1})` },
  ];
  if (approval.message) fields.push({ label: 'Message', value: approval.message });
  fields.push({ label: 'Expires', value: formatTime(approval.expires_at) });
  return {
    tone: 'warning',
    eventName: payload.event,
    title: `Job "${job.name}" is waiting for an approval`,
    fields,
    links: [
      { label: 'Review', url: approval.review_url },
      { label: 'Approve', url: approval.approve_url },
      { label: 'Reject', url: approval.reject_url },
    ],
    output: null,
    timestamp: payload.timestamp,
  };
}

function monitorSummary(message: NotificationMessage, payload: MonitorEvent): MessageSummary {
  const { monitor } = payload;
  const down = message.event === 'on_down';
  return {
    tone: down ? 'failure' : 'success',
    eventName: payload.event,
    title: down ? `Monitor "${monitor.name}" is down` : `Monitor "${monitor.name}" is up again`,
    fields: [
      { label: 'Monitor', value: monitor.name },
      { label: 'Expected every', value: formatSeconds(monitor.expected_interval_sec) },
      { label: down ? 'Last ping' : 'Ping received', value: monitor.last_ping_at ? formatTime(monitor.last_ping_at) : 'never' },
      { label: down ? 'Down since' : 'Up since', value: formatTime(payload.timestamp) },
    ],
    links: [],
    output: null,
    timestamp: payload.timestamp,
  };
}

// A message lists this many slots; the payload of a webhook has them all.
const LISTED_SLOTS = 10;

function missedSummary(payload: FireMissedPayload): MessageSummary {
  const { job, fires } = payload;
  const skipped = fires.filter((f) => f.outcome === 'skipped');
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const title = skipped.length > 0
    ? `Job "${job.name}" skipped ${skipped.length === 1 ? 'a run' : count(skipped.length, 'run')} (${skipped[0].reason ?? 'skipped'})`
    : `Job "${job.name}" missed ${fires.length === 1 ? 'a run' : count(fires.length, 'run')}`;
  const slots = fires.slice(0, LISTED_SLOTS).map((f) => formatTime(f.scheduled_for));
  if (fires.length > LISTED_SLOTS) slots.push(`and ${fires.length - LISTED_SLOTS} more`);
  return {
    tone: 'warning',
    eventName: payload.event,
    title,
    fields: [
      { label: 'Job', value: job.name },
      { label: skipped.length > 0 ? 'Skipped' : 'Missed', value: count(fires.length, 'slot') },
      { label: fires.length === 1 ? 'Slot' : 'Slots', value: slots.join(', ') },
    ],
    links: [],
    output: null,
    timestamp: payload.timestamp,
  };
}

export function summarizeMessage(message: NotificationMessage): MessageSummary {
  const { payload } = message;
  if (isApprovalEvent(payload)) return approvalSummary(payload);
  const extras = payload as AlertExtras;
  if (isMissedFiresEvent(payload)) return withAlertExtras(missedSummary(payload), extras);
  if (isMonitorEvent(payload)) return withAlertExtras(monitorSummary(message, payload), extras);
  return withAlertExtras(executionSummary(message, payload), extras);
}
