import type { StepType } from './jobs.js';
import type { PageQuery } from './lists.js';

export const EXECUTION_STATUSES = ['queued', 'running', 'waiting', 'succeeded', 'failed'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

export const EXECUTION_SOURCES = ['schedule', 'manual', 'replay', 'dlq_replay', 'webhook'] as const;
export type ExecutionSource = (typeof EXECUTION_SOURCES)[number];

/** Why a `waiting` execution waits: parked by hand, a wait_for_webhook step, an approval step. */
export const WAITING_REASONS = ['manual', 'webhook', 'approval'] as const;
export type WaitingReason = (typeof WAITING_REASONS)[number];

export const ATTEMPT_STATUSES = ['SUCCESS', 'TIMEOUT', 'CONNECTION_ERROR', 'HTTP_ERROR'] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

/** Transport failures of one attempt, as the outbound client reports them. */
export const TRANSPORT_ERROR_CLASSES = ['TIMEOUT', 'CONNECTION_ERROR', 'DNS_ERROR', 'TLS_ERROR', 'BLOCKED_TARGET'] as const;
export type TransportErrorClass = (typeof TRANSPORT_ERROR_CLASSES)[number];

/** A status outside success_statuses: HTTP_4XX, HTTP_5XX (1XX..3XX when not listed as success). */
export type HttpErrorClass = `HTTP_${1 | 2 | 3 | 4 | 5}XX`;

/** Error classes of attempts and executions besides HTTP_nXX: transport failures, then checks and step-driven runs. */
export const ERROR_CLASSES = [
  ...TRANSPORT_ERROR_CLASSES,
  'RESPONSE_MISMATCH',
  'SECRET_NOT_FOUND',
  'WORKFLOW_TIMEOUT',
  'WAIT_TIMEOUT',
  'APPROVAL_REJECTED',
  'APPROVAL_EXPIRED',
  'CONTEXT_LIMIT_EXCEEDED',
  'RECORD_FAILED',
] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number] | HttpErrorClass;

export const STEP_EXECUTION_STATUSES = ['running', 'waiting', 'succeeded', 'failed'] as const;
export type StepExecutionStatus = (typeof STEP_EXECUTION_STATUSES)[number];

/** Waits end resumed or timed_out; approvals approved, rejected or expired. */
export const STEP_DECISIONS = ['resumed', 'timed_out', 'approved', 'rejected', 'expired'] as const;
export type StepDecision = (typeof STEP_DECISIONS)[number];

/**
 * The request an attempt sent, as the service built it, with every secret's value replaced by
 * `[secret]`; `body` is its first 64 KiB as sent (JSON or text), null without one.
 */
export type AttemptRequest = {
  method: string;
  url: string;
  headers: { [name: string]: string };
  body: string | null;
  bodyTruncated: boolean;
};

/**
 * How long each phase of an attempt took, in whole milliseconds; null for a phase that did not
 * happen: `dns_ms` for an address host, `dns_ms`, `connect_ms` and `tls_ms` on a reused connection,
 * `tls_ms` over http, `ttfb_ms` (request written to response headers) without a response.
 */
export type AttemptTimings = {
  dns_ms: number | null;
  connect_ms: number | null;
  tls_ms: number | null;
  ttfb_ms: number | null;
  total_ms: number;
};

/** One HTTP attempt. `bodyPreview` and `request` only on a single execution, not in lists. */
export interface Attempt {
  number: number;
  status: AttemptStatus;
  statusCode: number | null;
  latencyMs: number;
  /** Null for attempts recorded before timings were. */
  timings: AttemptTimings | null;
  /** Null when nothing was sent (or the attempt was recorded before requests were). */
  request?: AttemptRequest | null;
  bodyPreview?: string | null;
  responseHeaders: { [name: string]: string } | null;
  errorClass: ErrorClass | null;
  errorMessage: string | null;
  startedAt: string;
  /** How long the attempt waited for its host's budget or Retry-After cool-down before it was sent (0 when it did not). */
  budget_wait_ms: number;
  created_at: string;
  updated_at: string;
}

/** One step of a step-driven execution; the wait fields only for wait_for_webhook and approval steps. */
export interface StepExecution {
  id: string;
  step_id: string;
  step_index: number;
  type: StepType;
  status: StepExecutionStatus;
  attempt_count: number;
  attempts: Attempt[];
  started_at: string;
  finished_at: string | null;
  output: unknown;
  extracted: unknown;
  error_class: ErrorClass | null;
  error_message: string | null;
  waiting_payload?: unknown;
  expires_at?: string | null;
  decision?: StepDecision | null;
  decided_at?: string | null;
  input?: unknown;
  created_at: string;
  updated_at: string;
}

/** An execution; `attempts` and `step_executions` only where they are loaded (a single execution). */
export interface Execution {
  id: string;
  job_id: string;
  job_name: string;
  status: ExecutionStatus;
  source: ExecutionSource;
  scheduled_for: string;
  attempt_count: number;
  attempts?: Attempt[];
  step_executions?: StepExecution[];
  trigger_input: unknown;
  final_response: unknown;
  final_output: unknown;
  error_class: ErrorClass | null;
  error_message: string | null;
  waiting_reason: WaitingReason | null;
  waiting_payload: unknown;
  waiting_expires_at: string | null;
  dead_lettered_at: string | null;
  replay_of_id: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
}

/**
 * An item of the execution lists (GET /v1/executions, /v1/jobs/:id/executions, /v1/dlq): the
 * execution without the values whose size a sender or a target chooses (`trigger_input`,
 * `final_response`, `final_output`) and with its attempts without `bodyPreview`. GET
 * /v1/executions/:id has them all.
 */
export type ExecutionSummary = Omit<Execution, 'trigger_input' | 'final_response' | 'final_output' | 'step_executions'>;

export const EXECUTION_SORTS = ['scheduled_for', 'created_at'] as const;
export type ExecutionSort = (typeof EXECUTION_SORTS)[number];

/** GET /v1/executions and /v1/jobs/:id/executions filters; from/to bound the sort field, inclusive. */
export interface ExecutionListQuery extends PageQuery {
  status?: ExecutionStatus;
  from?: string;
  to?: string;
  job_name?: string;
  sort?: ExecutionSort;
  order?: 'asc' | 'desc';
}

/** GET /v1/dlq takes the filters of GET /v1/executions. */
export type DlqListQuery = ExecutionListQuery;

/** The windows of a job's statistics: hourly buckets over 24 h, daily ones over 7 and 30 days. */
export const STATS_WINDOWS = ['24h', '7d', '30d'] as const;
export type StatsWindow = (typeof STATS_WINDOWS)[number];

/** One bucket of a job's statistics: executions that ended in it; percentiles null without any. */
export type StatsBucket = {
  start: string;
  executions: number;
  failed: number;
  p50_ms: number | null;
  p95_ms: number | null;
};

/** GET /v1/jobs/:id/stats: executions that ended in the window; rates 0..1, null without executions. */
export type JobStats = {
  window: StatsWindow;
  executions: number;
  succeeded: number;
  failed: number;
  success_rate: number | null;
  duration_ms: { p50: number | null; p95: number | null; p99: number | null };
  buckets: StatsBucket[];
};
