import type { ExecutionEvent } from './execution-event.js';
import type { FireMissedPayload, RuleEvent } from '@cronsvc/contracts';

/** The approval event (docs/NOTIFICATIONS.md), as a workflow's approval step writes it to the outbox. */
export interface ApprovalEvent {
  event: string;
  job: { id: string; name: string };
  execution: { id: string; status: string; waiting_reason: string };
  approval: {
    step_id: string;
    step_index: number;
    message: string | null;
    expires_at: string | null;
    review_url: string;
    approve_url: string;
    reject_url: string;
  };
  timestamp: string;
}

/** The monitor event (docs/NOTIFICATIONS.md). */
export interface MonitorEvent {
  event: string;
  monitor: { id: string; name: string; expected_interval_sec: number; last_ping_at: string | null };
  timestamp: string;
  held_back?: number;
  /** monitor.down deliveries: the public link that snoozes the rule. */
  snooze_url?: string;
}

export type NotificationPayload = ExecutionEvent | ApprovalEvent | MonitorEvent | FireMissedPayload;

/** What channels other than webhooks show about an execution besides its payload. */
export interface ExecutionContext {
  scheduled_for: string | null;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
  attempts: number;
  error_message: string | null;
  execution_url: string;
}

/** One notification to render: the rule event, the payload a webhook receives, and the extras. */
export interface NotificationMessage {
  event: RuleEvent;
  payload: NotificationPayload;
  context: ExecutionContext | null;
}

export const isMonitorEvent = (p: NotificationPayload): p is MonitorEvent => 'monitor' in p;
export const isApprovalEvent = (p: NotificationPayload): p is ApprovalEvent => 'approval' in p;
/** A window of missed slots or a skipped slot of the fire ledger (docs/NOTIFICATIONS.md). */
export const isMissedFiresEvent = (p: NotificationPayload): p is FireMissedPayload => 'fires' in p;
export const isExecutionEvent = (p: NotificationPayload): p is ExecutionEvent => !isMonitorEvent(p) && !isApprovalEvent(p) && !isMissedFiresEvent(p);
