/**
 * The names of notifications: the events of the outbox (named like the payloads a webhook
 * receives) and the rule events that subscribe to them. Pure data, no I/O.
 * The names themselves are part of the API and live in @cronsvc/contracts.
 */
import type { EventType, PayloadEvent, RuleEvent } from '@cronsvc/contracts';

/** The payload event name a rule's deliveries carry: on_completion reports either outcome as one. */
export const PAYLOAD_EVENT: Record<RuleEvent, PayloadEvent> = {
  on_success: 'execution.succeeded',
  on_failure: 'execution.failed',
  on_completion: 'execution.completed',
  on_approval_required: 'approval.required',
  on_down: 'monitor.down',
  on_recovery: 'monitor.recovered',
  // A job's on_recovery rule: execution.recovered (JOB_RECOVERED below).
  on_missed: 'fire.missed',
};

/** The rule events an outbox event triggers. */
export const RULE_EVENTS_OF: Record<EventType, readonly RuleEvent[]> = {
  'execution.succeeded': ['on_success', 'on_completion', 'on_recovery'],
  'execution.failed': ['on_failure', 'on_completion'],
  'approval.required': ['on_approval_required'],
  'monitor.down': ['on_down'],
  'monitor.recovered': ['on_recovery'],
  'fire.missed': ['on_missed'],
};

/** The callback an execution event owes, if its job has the URL. */
export const CALLBACK_OF: Partial<Record<EventType, { event: RuleEvent; urlOf: 'onSuccessUrl' | 'onFailureUrl' }>> = {
  'execution.succeeded': { event: 'on_success', urlOf: 'onSuccessUrl' },
  'execution.failed': { event: 'on_failure', urlOf: 'onFailureUrl' },
};

/** The payload event of a job's on_recovery rule (a monitor's is monitor.recovered). */
export const JOB_RECOVERED: PayloadEvent = 'execution.recovered';
