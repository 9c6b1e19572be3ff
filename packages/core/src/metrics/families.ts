import { ATTEMPT_STATUSES, FIRE_OUTCOMES, type FireOutcome } from '@cronsvc/contracts';
import { Counter, Gauge, Histogram } from 'prom-client';
import { processRegistry } from './registry.js';

/**
 * The metric families a process records, declared once. Every label takes its values from a
 * closed set (statuses, HTTP methods, route patterns), never an id, token, URL or name, so the
 * number of series stays bounded whatever the tenants do.
 */

const registers = [processRegistry];

// From a fast local call to the 300 s request timeout.
const ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
// Late fires are what matters: from on time to minutes behind.
const LAG_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600];
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const FINISHED_STATUSES = ['succeeded', 'failed'] as const;
/** Why a trigger call's input was not stored. */
export const TRIGGER_DROP_REASONS = ['stored_bytes_limit'] as const;
export const DELIVERY_OUTCOMES = ['sent', 'failed'] as const;

export const executionsFinished = new Counter({
  name: 'cronsvc_executions_finished_total',
  help: 'Executions that ended, by final status.',
  labelNames: ['status'] as const,
  registers,
});

export const attempts = new Counter({
  name: 'cronsvc_attempts_total',
  help: 'HTTP attempts recorded (request jobs and http steps), by attempt status.',
  labelNames: ['status'] as const,
  registers,
});

export const attemptDuration = new Histogram({
  name: 'cronsvc_attempt_duration_seconds',
  help: 'Round-trip time of recorded HTTP attempts.',
  buckets: ATTEMPT_BUCKETS,
  registers,
});

export const fireLag = new Histogram({
  name: 'cronsvc_fire_lag_seconds',
  help: "Time from an execution's scheduled_for to its first request.",
  buckets: LAG_BUCKETS,
  registers,
});

/** The outcomes a fire is counted under once it has one: every outcome but pending. */
export const COUNTED_FIRE_OUTCOMES = FIRE_OUTCOMES.filter((o): o is Exclude<FireOutcome, 'pending'> => o !== 'pending');

export const fires = new Counter({
  name: 'cronsvc_fires_total',
  help: 'Expected fires of scheduled jobs by outcome: fired, late and caught_up when the first request goes out, missed and skipped when recorded.',
  labelNames: ['outcome'] as const,
  registers,
});

export const deliveries = new Counter({
  name: 'cronsvc_deliveries_total',
  help: 'Notification and callback deliveries that ended, by outcome.',
  labelNames: ['status'] as const,
  registers,
});

export const triggerInputsDropped = new Counter({
  name: 'cronsvc_trigger_inputs_dropped_total',
  help: 'Trigger calls answered as received whose input was not stored, by reason (stored_bytes_limit: the workspace is at MAX_STORED_BYTES_PER_WORKSPACE).',
  labelNames: ['reason'] as const,
  registers,
});

export const httpRequests = new Counter({
  name: 'cronsvc_http_requests_total',
  help: 'HTTP requests answered by the API, by method, route pattern and status code.',
  labelNames: ['method', 'route', 'status_code'] as const,
  registers,
});

export const httpRequestDuration = new Histogram({
  name: 'cronsvc_http_request_duration_seconds',
  help: 'Time to answer HTTP requests, by method and route pattern.',
  labelNames: ['method', 'route'] as const,
  buckets: HTTP_BUCKETS,
  registers,
});

export const fairShareDeferrals = new Counter({
  name: 'cronsvc_fair_share_deferrals_total',
  help: 'Claims refused because their workspace had WORKSPACE_MAX_IN_FLIGHT requests in flight (no attempt made).',
  registers,
});

export const heldBackExecutions = new Gauge({
  name: 'cronsvc_fair_share_held_back',
  help: 'Executions an executor holds back because their workspace has no room under WORKSPACE_MAX_IN_FLIGHT.',
  registers,
});

export const budgetWaits = new Counter({
  name: 'cronsvc_budget_waits_total',
  help: "Requests held back by their host's budget or Retry-After cool-down before they were sent (each counted once, waited or deferred).",
  registers,
});

export const processes = new Gauge({
  name: 'cronsvc_processes',
  help: 'Processes of the service that answered this scrape, by app (api, scheduler, executor, notifier, supervisor).',
  labelNames: ['app'] as const,
  registers,
});

/** Marks this process as running `app` (an ALL_IN_ONE process runs all four). */
export function markProcess(app: 'api' | 'scheduler' | 'executor' | 'notifier' | 'supervisor'): void {
  processes.set({ app }, 1);
}

// Every series of a closed set exists from the start at 0, so a rate() over it is defined
// before the first event and an alert on it does not wait for one.
for (const status of FINISHED_STATUSES) executionsFinished.inc({ status }, 0);
for (const status of ATTEMPT_STATUSES) attempts.inc({ status }, 0);
for (const status of DELIVERY_OUTCOMES) deliveries.inc({ status }, 0);
for (const outcome of COUNTED_FIRE_OUTCOMES) fires.inc({ outcome }, 0);
for (const reason of TRIGGER_DROP_REASONS) triggerInputsDropped.inc({ reason }, 0);
