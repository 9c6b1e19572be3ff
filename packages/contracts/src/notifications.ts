import type { PageQuery } from './lists.js';

export const CHANNEL_TYPES = ['webhook', 'email', 'chat_a', 'chat_b', 'chat_c'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** The state changes a notification may be about (the notification outbox's event types). */
export const EVENT_TYPES = ['execution.succeeded', 'execution.failed', 'approval.required', 'monitor.down', 'monitor.recovered', 'fire.missed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The `event` a delivered payload carries: an on_completion rule reports either outcome as execution.completed. */
export const PAYLOAD_EVENTS = [
  'execution.succeeded', 'execution.failed', 'execution.completed', 'execution.recovered', 'approval.required', 'monitor.down', 'monitor.recovered', 'fire.missed',
] as const;
export type PayloadEvent = (typeof PAYLOAD_EVENTS)[number];

/** Events a job's rule may subscribe a channel to. */
export const JOB_RULE_EVENTS = ['on_success', 'on_failure', 'on_completion', 'on_approval_required', 'on_missed', 'on_recovery'] as const;
export type JobRuleEvent = (typeof JOB_RULE_EVENTS)[number];

/** Events a monitor's rule may subscribe a channel to. */
export const MONITOR_RULE_EVENTS = ['on_down', 'on_recovery'] as const;
export type MonitorRuleEvent = (typeof MONITOR_RULE_EVENTS)[number];

export type RuleEvent = JobRuleEvent | MonitorRuleEvent;

export const DELIVERY_STATUSES = ['pending', 'processing', 'sent', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** callback: an execution's on_success_url / on_failure_url; channel: a rule's notification. */
export const DELIVERY_KINDS = ['callback', 'channel'] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];

/** A channel as the API shows it: never a credential, only the names of those that are set. */
export interface Channel {
  id: string;
  name: string;
  type: ChannelType;
  config: { [field: string]: unknown };
  configured_secrets: string[];
  created_at: string;
  updated_at: string;
}

/** Body of POST /v1/notification-channels; `config` holds the type's fields, credentials included. */
export interface ChannelInput {
  name: string;
  type: ChannelType;
  config: { [field: string]: unknown };
}

/** Body of PATCH /v1/notification-channels/:id. */
export type ChannelPatch = Partial<ChannelInput>;

/** POST /v1/notification-channels/:id/test answer when the test message was delivered. */
export interface ChannelTestSuccess {
  ok: true;
  channel_id: string;
  provider: ChannelType;
}

/** The test answer when it was not: still HTTP 200; http_status is the receiver's (0 when none answered). */
export interface ChannelTestFailure {
  ok: false;
  error: { code: 'notification_test_failed'; message: string };
  http_status: number;
  permanent: boolean;
}

export type ChannelTestResult = ChannelTestSuccess | ChannelTestFailure;

/** A rule subscribes a channel to one event of one job or one monitor. */
export interface Rule {
  id: string;
  channel_id: string;
  event: RuleEvent;
  job_id: string | null;
  monitor_id: string | null;
  /** on_failure rules of jobs: the streak's first delivery comes with its Nth consecutive failure (1..100). */
  after_consecutive_failures: number;
  /** on_failure rules of jobs: minutes between deliveries of one streak after its first; 0 every failure, null never again. */
  realert_after_minutes: number | null;
  /** Until when the rule delivers nothing; null when not snoozed. */
  snoozed_until: string | null;
  last_delivered_at: string | null;
  /** Events not delivered since the last delivery (streak, re-alert interval or snooze). */
  held_back: number;
  created_at: string;
  updated_at: string;
}

/** Body of POST /v1/jobs/:id/notification-rules (job events) or /v1/monitors/:id/notification-rules (monitor events). */
export interface RuleInput {
  channel_id: string;
  event: RuleEvent;
  after_consecutive_failures?: number;
  realert_after_minutes?: number | null;
}

/** GET on a snooze link, for a client that asks for JSON (a browser gets the page): what it would snooze. */
export interface SnoozeLink {
  event: RuleEvent;
  job_id: string | null;
  monitor_id: string | null;
  /** The job's or monitor's name. */
  name: string;
  snoozed_until: string | null;
}

/** The answer to POST on a snooze link. */
export interface SnoozeLinkResult {
  snoozed_until: string;
}

/** Body of POST /v1/notification-rules/:id/snooze. */
export interface SnoozeInput {
  minutes: number;
}

/** One message to deliver; callbacks have no channel or rule, channel deliveries no url. */
export interface Delivery {
  id: string;
  kind: DeliveryKind;
  channel_id: string | null;
  rule_id: string | null;
  /** The rule's event; a callback's is on_success or on_failure. */
  event: RuleEvent;
  execution_id: string | null;
  monitor_id: string | null;
  url: string | null;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  /** Only while pending: when the next attempt is planned. */
  next_attempt_at: string | null;
  sent_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Delivery list filters. */
export interface DeliveryListQuery extends PageQuery {
  status?: DeliveryStatus;
}
