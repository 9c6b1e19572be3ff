import type { PageQuery } from './lists.js';

/** Job kinds: the first four send one request per run, the last two run steps. */
export const JOB_KINDS = ['recurring', 'cron', 'scheduled', 'one_time', 'workflow', 'webhook_trigger'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export const REQUEST_KINDS = ['recurring', 'cron', 'scheduled', 'one_time'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];

export const STEP_KINDS = ['workflow', 'webhook_trigger'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/** Kinds with a schedule: their expected fires are the fire ledger, and they carry the fire policies. */
export const SCHEDULED_KINDS = ['recurring', 'cron', 'scheduled', 'workflow'] as const;
export type ScheduledKind = (typeof SCHEDULED_KINDS)[number];

/** What a fire does when the job's max_concurrent_executions is reached at its due time: wait, or be skipped. */
export const OVERLAP_POLICIES = ['queue', 'skip'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** What a window of slots that passed while nothing fired them gets: one catch-up execution, or none. */
export const CATCH_UP_POLICIES = ['one', 'none'] as const;
export type CatchUpPolicy = (typeof CATCH_UP_POLICIES)[number];

/** jitter_seconds is 0..MAX_JITTER_SECONDS. */
export const MAX_JITTER_SECONDS = 3600;

export const JOB_STATES = ['active', 'paused', 'draft', 'completed'] as const;
export type JobState = (typeof JOB_STATES)[number];

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const NOTIFICATION_OVERRIDES = ['inherit', 'mute_all'] as const;
export type NotificationOverride = (typeof NOTIFICATION_OVERRIDES)[number];

export const ASSERTION_OPS = ['eq', 'neq', 'contains', 'not_contains', 'exists', 'not_exists', 'gt', 'gte', 'lt', 'lte', 'matches', 'in'] as const;
export type AssertionOp = (typeof ASSERTION_OPS)[number];

export const DEFAULT_SUCCESS_STATUSES: readonly number[] = [200, 201, 202, 204];
export const DEFAULT_RETRY_ON_STATUSES: readonly number[] = [429, 500, 502, 503, 504];

// Types rather than interfaces where core stores the value in a JSON column: a type alias
// is assignable to JSON's index signature, an interface is not. Maps are index signatures
// rather than Record: the OpenAPI document's schemas are generated from these types
// (scripts/contract-schemas.ts), and a Record's values would be lost on the way.
export type RetryPolicy = {
  max_attempts: number;
  retry_on_statuses: number[];
};

export interface ResponseMatcher {
  success_pattern?: string;
  failure_pattern?: string;
  flags?: string;
}

/** `path` for json assertions, `name` for headers assertions. */
export interface Assertion {
  op: AssertionOp;
  value?: unknown;
  path?: string;
  name?: string;
}

export interface ResponseAssertions {
  status?: Assertion[];
  json?: Assertion[];
  text?: Assertion[];
  headers?: Assertion[];
}

/** The request of a request job, as stored and shown (defaults filled in). */
export interface RequestSpec {
  url: string;
  method: HttpMethod;
  headers: { [name: string]: string };
  body: unknown;
  timeout_seconds: number;
  success_statuses: number[];
  response_matcher?: ResponseMatcher;
  response_assertions?: ResponseAssertions;
  response_output_template?: unknown;
}

/** One schedule field per kind: every_n_minutes (recurring), cron (cron, workflow), run_at (scheduled). */
export interface Schedule {
  every_n_minutes?: number;
  cron?: string;
  run_at?: string;
}

export const STEP_TYPES = ['http', 'wait_for_webhook', 'approval'] as const;
export type StepType = (typeof STEP_TYPES)[number];

interface StepBase {
  id: string;
  extract?: { [key: string]: string };
  extract_to_context?: { [key: string]: string };
}
export interface HttpStep extends StepBase {
  type: 'http';
  url: string;
  method: string;
  headers: { [name: string]: string };
  body_template?: unknown;
  timeout_seconds: number;
  success_statuses: number[];
  response_matcher?: ResponseMatcher;
  response_assertions?: ResponseAssertions;
}
export interface WaitStep extends StepBase {
  type: 'wait_for_webhook';
  timeout_seconds?: number;
  on_timeout: 'fail' | 'continue';
}
export interface ApprovalStep extends StepBase {
  type: 'approval';
  message: string;
  timeout_seconds?: number;
  on_timeout: 'reject' | 'approve';
}
export type Step = HttpStep | WaitStep | ApprovalStep;

/** A step in a request body: what the service has a default for (method, headers, timeouts, statuses, on_timeout) may be left out. */
export type StepInput =
  | (Partial<HttpStep> & Pick<HttpStep, 'id' | 'type' | 'url'>)
  | (Partial<WaitStep> & Pick<WaitStep, 'id' | 'type'>)
  | (Partial<ApprovalStep> & Pick<ApprovalStep, 'id' | 'type' | 'message'>);

/** A job as the API shows it: fields that do not apply to its kind are left out. */
export interface Job {
  id: string;
  /** Names the job in apply documents (docs/JOBS-AS-CODE.md); unique in the workspace. */
  key: string | null;
  name: string;
  kind: JobKind;
  state: JobState;
  schedule?: Schedule;
  request?: RequestSpec;
  steps?: Step[];
  retry_policy: RetryPolicy;
  next_run_at: string | null;
  max_concurrent_executions: number;
  max_workflow_duration_seconds?: number;
  /** The kinds with a schedule only (SCHEDULED_KINDS). */
  overlap_policy?: OverlapPolicy;
  catch_up_policy?: CatchUpPolicy;
  jitter_seconds?: number;
  /** webhook_trigger jobs only. */
  webhook_token?: string | null;
  trigger_url?: string | null;
  webhook_secret_configured?: boolean;
  on_success_url: string | null;
  on_failure_url: string | null;
  notification_override: NotificationOverride;
  /** Sorted, without repeats. */
  tags: string[];
  idempotency_key: string | null;
  /** The public, unguessable URL of the job's status badge (SVG; `.json` for shields.io). */
  badge_url: string;
  created_at: string;
  updated_at: string;
}

/** What a list item shows of a request (docs/API.md, "Lists"): the whole request is on GET /v1/jobs/:id. */
export type RequestSummary = Pick<RequestSpec, 'url' | 'method' | 'timeout_seconds'>;

/** What a list item shows of a step: its id and type, and the URL and method of an http step. */
export interface StepSummary {
  id: string;
  type: StepType;
  url?: string;
  method?: string;
}

/**
 * An item of GET /v1/jobs: the job, with `request` and `steps` cut to what identifies them, so a
 * page stays small whatever the bodies, headers and templates of its jobs weigh.
 */
export interface JobSummary extends Omit<Job, 'request' | 'steps'> {
  request?: RequestSummary;
  steps?: StepSummary[];
}

type DeepPartial<T> = T extends readonly (infer U)[] ? U[] : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

/** Body of POST /v1/jobs: the service's defaults fill what is left out. */
export interface JobInput {
  name: string;
  kind: JobKind;
  state?: JobState;
  schedule?: Schedule;
  request?: Partial<RequestSpec> & { url: string };
  steps?: StepInput[];
  retry_policy?: Partial<RetryPolicy>;
  max_concurrent_executions?: number;
  max_workflow_duration_seconds?: number;
  /** The kinds with a schedule only; setting one on another kind is a 400. */
  overlap_policy?: OverlapPolicy;
  catch_up_policy?: CatchUpPolicy;
  jitter_seconds?: number;
  on_success_url?: string | null;
  on_failure_url?: string | null;
  notification_override?: NotificationOverride;
  /** webhook_trigger jobs only; write-only. */
  webhook_secret?: string | null;
  key?: string | null;
  tags?: string[];
}

/** Body of PATCH /v1/jobs/:id: at least one field; objects (request, schedule, retry_policy) merge into the stored ones. */
export type JobPatch = DeepPartial<JobInput>;

/** GET /v1/jobs filters. */
export interface JobListQuery extends PageQuery {
  state?: JobState;
  kind?: JobKind;
  name?: string;
  /** Repeatable: a job must have every tag given. */
  tag?: string | string[];
}

/** Body of POST /v1/jobs/import: a crontab of up to 1000 lines; default_url for lines without one. */
export interface ImportInput {
  crontab: string;
  default_url?: string;
}

/** Lines per import, comments and blank lines included: one request stays well inside a request timeout. */
export const MAX_CRONTAB_LINES = 1000;

/** One line of a crontab import that could not become a job (`line` is 1-based). */
export interface ImportError {
  line: number;
  text: string;
  message: string;
}

/** POST /v1/jobs/import answer. */
export interface ImportResult {
  created: Job[];
  errors: ImportError[];
  /** What to know about the jobs created: that their times are UTC, that names leave out URL query strings. */
  notes: string[];
}

/** GET and PATCH /v1/jobs/:id/context: the bare map. */
export type JobContext = { [key: string]: string };

/** Body of PATCH /v1/jobs/:id/context: a key set to null is deleted. */
export type JobContextPatch = { [key: string]: string | null };

/** The request header that makes POST /v1/jobs idempotent: 1 to 255 printable ASCII characters. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** An item of GET /v1/tags: a tag and how many jobs of the workspace carry it. */
export interface TagCount {
  tag: string;
  jobs: number;
}

/** GET /v1/tags answer, sorted by tag. */
export interface TagList {
  data: TagCount[];
}

/** POST /v1/tags/:tag/pause and /resume answer: how many jobs changed state. */
export interface TagChange {
  tag: string;
  changed: number;
}

/** One job of an apply document: a job body with its key. */
export interface KeyedJobInput extends JobInput {
  key: string;
}

/** Body of POST /v1/jobs/apply (docs/JOBS-AS-CODE.md). */
export interface ApplyInput {
  /** Each job whole, with its `key`; fields left out take their defaults, except `state`. */
  jobs: KeyedJobInput[];
  /** Delete the keyed jobs the document does not give (only those with `prune_tag` when set). */
  prune?: boolean;
  prune_tag?: string;
  /** Answer what would change, and change nothing. */
  dry_run?: boolean;
}

/** A job an apply changes, with the top-level fields that change. */
export interface ApplyUpdate {
  key: string;
  fields: string[];
}

/** POST /v1/jobs/apply answer, by key. */
export interface ApplyResult {
  created: string[];
  updated: ApplyUpdate[];
  deleted: string[];
  unchanged: string[];
}

/** The fields of a job as shown that the service sets: an export leaves them out, and an apply ignores them. */
export type ServerSetJobField = 'id' | 'next_run_at' | 'created_at' | 'updated_at' | 'webhook_token' | 'trigger_url' | 'webhook_secret_configured' | 'idempotency_key' | 'badge_url';

/** One job of an export: the job as stored, every default written out, without the fields the service sets. */
export interface ExportedJob extends Omit<Job, ServerSetJobField | 'key'> {
  key: string;
}

/** GET /v1/jobs/export answer: every keyed job as an apply document. */
export interface ApplyDocument {
  jobs: ExportedJob[];
}
