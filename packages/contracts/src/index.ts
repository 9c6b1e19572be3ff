// The API's wire shapes (docs/adr/011-contracts-package-and-core-boundaries.md): types and constants only, no side effects, so
// the CLI and tests can import them without loading Prisma, BullMQ or the server.
export { type ErrorCode, type ErrorDetail, type ErrorEnvelope, ERROR_CODES, ERROR_STATUS } from './errors.js';
export { type ListEnvelope, type PageQuery, DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from './lists.js';
export {
  type ApprovalStep, type Assertion, type AssertionOp, type HttpMethod, type HttpStep, type ImportError, type ImportInput, type ImportResult,
  type Job, type JobContext, type JobContextPatch, type JobInput, type JobKind, type JobListQuery, type JobPatch, type JobState, type JobSummary,
  type CatchUpPolicy, type NotificationOverride, type OverlapPolicy, type RequestKind, type ScheduledKind, type RequestSpec, type RequestSummary,
  type ResponseAssertions, type ResponseMatcher, type RetryPolicy, type Schedule, type Step, type StepInput, type StepKind, type StepSummary, type StepType,
  type WaitStep,
  type ApplyDocument, type ApplyInput, type ApplyResult, type ApplyUpdate, type ExportedJob, type KeyedJobInput, type ServerSetJobField, type TagChange, type TagCount, type TagList,
  ASSERTION_OPS, CATCH_UP_POLICIES, DEFAULT_RETRY_ON_STATUSES, DEFAULT_SUCCESS_STATUSES, HTTP_METHODS, IDEMPOTENCY_KEY_HEADER, JOB_KINDS, JOB_STATES,
  MAX_CRONTAB_LINES, MAX_JITTER_SECONDS, NOTIFICATION_OVERRIDES, OVERLAP_POLICIES, REQUEST_KINDS, SCHEDULED_KINDS, STEP_KINDS, STEP_TYPES,
} from './jobs.js';
export {
  type Attempt, type AttemptRequest, type AttemptStatus, type AttemptTimings, type DlqListQuery, type ErrorClass, type Execution, type ExecutionListQuery, type ExecutionSort,
  type ExecutionSummary,
  type ExecutionSource, type ExecutionStatus, type HttpErrorClass, type StepDecision, type StepExecution, type StepExecutionStatus,
  type TransportErrorClass, type WaitingReason,
  ATTEMPT_STATUSES, ERROR_CLASSES, EXECUTION_SORTS, EXECUTION_SOURCES, EXECUTION_STATUSES, STEP_DECISIONS, STEP_EXECUTION_STATUSES,
  TRANSPORT_ERROR_CLASSES, WAITING_REASONS,
  type JobStats, type StatsBucket, type StatsWindow, STATS_WINDOWS,
} from './executions.js';
export { type HostLimit, type HostLimitInput } from './host-limits.js';
export { type Secret, type SecretInput, type SecretPatch, SECRET_NAME_PATTERN } from './secrets.js';
export { type SigningKey } from './signing-keys.js';
export {
  type Channel, type ChannelInput, type ChannelPatch, type ChannelTestFailure, type ChannelTestResult, type ChannelTestSuccess, type ChannelType,
  type Delivery, type DeliveryKind, type DeliveryListQuery, type DeliveryStatus, type EventType, type JobRuleEvent, type MonitorRuleEvent,
  type PayloadEvent, type Rule, type RuleEvent, type RuleInput, type SnoozeInput, type SnoozeLink, type SnoozeLinkResult,
  CHANNEL_TYPES, DELIVERY_KINDS, DELIVERY_STATUSES, EVENT_TYPES, JOB_RULE_EVENTS, MONITOR_RULE_EVENTS, PAYLOAD_EVENTS,
} from './notifications.js';
export {
  type Fire, type FireListQuery, type FireMissedPayload, type FireOutcome, type FireSkipReason, type WorkspaceFire, type WorkspaceFireListQuery,
  FIRE_OUTCOMES, FIRE_SKIP_REASONS,
} from './fires.js';
export {
  type BadgeState, type Monitor, type MonitorInput, type MonitorListQuery, type MonitorPatch, type MonitorPing, type MonitorPingKind, type MonitorSchedule, type MonitorState, type PingResult,
  type ShieldsEndpoint, BADGE_STATES, MONITOR_PING_KINDS, MONITOR_STATES,
  type PublicStatusPage, type StatusDayState, type StatusPage, type StatusPageInput, type StatusPageItem, type StatusPagePatch,
} from './monitors.js';
export { type DlqStats, type PurgeInput, type PurgeResult, type ReplayBatchInput, type ReplayBatchResult, REPLAY_BATCH_MAX } from './dlq.js';
export {
  type Approval, type ApprovalDecision, type ApprovalDecisionResult, type ApprovalStatus, type ResumeResult, type TriggerResult, APPROVAL_STATUSES,
} from './workflows.js';
export { type ApiToken, type ApiTokenCreated, type AuditEvent, type Health, type Readiness, type ReadinessCheck, type TokenScope, type WorkspaceCreated, type WorkspaceInput } from './workspaces.js';
