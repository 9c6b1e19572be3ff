// The entry point of @cronsvc/core: what the apps, bench/, scripts/ and tests may use, domain by
// domain. Each domain's index.ts names its public part; everything else in a domain is internal.
// The API's wire shapes (types, kinds, statuses, error codes) are in @cronsvc/contracts.

export {
  type Actor, type ActorKind, adminActor, type AuditEntry, consoleActor, type ConsoleSession, endConsoleSession, findConsoleSession, listAuditEvents,
  openConsoleSession, type Permission, permits, pruneAuditEvents, requiredScope, type Scope, serializeAuditEvent, SESSION_LIFETIME_MS, tokenActor,
  writeAudit
} from './access/index.js';
export { loadConfig, type QueueBackendName } from './config/index.js';
export { type Db, type EmbeddedPostgres, freePort, type JobRow, Prisma, processAlive, type SqlPool, startEmbeddedPostgres } from './db/index.js';
export { type Clock, type Deps } from './deps/index.js';
export {
  listDeliveries, dueDeliveries, reclaimDeliveries, type ReclaimedDeliveries, reconcileDeliveries, releaseDeliveries, retryDelivery, sendDelivery, serializeDelivery
} from './deliveries/index.js';
export { dlqStats, listDlq, purgeDlq, removeFromDlq, replayBatch, replayExecution } from './dlq/index.js';
export {
  badgeByToken, badgeSvg, badgeTokenKnown, createStatusPage, deleteStatusPage, findStatusPage, listStatusPages, publicStatusPage, rotateJobBadge, rotateMonitorBadge,
  serializeStatusPage, shieldsEndpoint, statusPageTokenKnown, updateStatusPage,
} from './history/index.js';
export { AppError, isUnavailable } from './errors/index.js';
export {
  durationClass, executionRow, type ExecutionWithAttempts, getExecution, JOB_STATS_KEPT_DAYS, jobStats, listExecutions, type Outcome, parkExecution, pruneExecutions, pruneJobStats, recentOutcomes,
  reclaimExecutions, type Reclaimed, reconcileQueue, resumeExecution, retentionCutoff, rollupWrite, runNow, serializeExecution, serializeExecutionSummary
} from './executions/index.js';
export { jobFire, type LedgerFire, listFires, listJobFires, missedCounts, pruneFireGaps } from './fires/index.js';
export { createHttpClient, type HttpClient, type HttpResult, traceIdOf, traceparent, TRACEPARENT_HEADER } from './http/index.js';
export {
  deleteHostLimit, findHostLimit, hostCooldowns, HostGate, hostOf, type HostLimiter, type HostLimitRow, listHostLimits, postgresHostLimiter, putHostLimit,
  redisHostLimiter, serializeHostLimit
} from './hosts/index.js';
export { hashToken, newId } from './ids/index.js';
export {
  applyJobs, countTagged, createJob, deleteJob, exportJobs, findJob, listTags, pauseTag, resumeTag, IMPORT_NOTES, importCrontab, type JobInput, jobSchema, listJobs, pauseJob, resumeJob, serializeJob, serializeJobSummary,
  upcomingFires,
  updateJob
} from './jobs/index.js';
export { createLogger, type Logger, withLogContext } from './logging/index.js';
export { fairShareDeferrals, heldBackExecutions, httpRequestDuration, httpRequests, markProcess, observeDelivery, processRegistry } from './metrics/index.js';
export {
  BODY_PREVIEW_BYTES, createMonitor, deleteMonitor, downDeadline, findMonitor, listMonitorPings, listMonitors, nextExpectedAfter, pauseMonitor, pingTokenKnown,
  PINGS_KEPT, pruneMonitorDeliveries, recordPing, resumeMonitor, revealPingToken, serializeMonitor, SWEEP_SQL, sweepMonitors, updateMonitor, type PingDetails
} from './monitors/index.js';
export {
  type ChannelRule, createChannel, createMailer, createRule, decryptCredentials, deleteChannel, deleteRule, findChannel, listChannelRules,
  listChannels, listRules, type Mailer, relayEvents, type RuleOwner, SEND_TIMEOUT_MS, serializeChannel, serializeRule, testChannel,
  updateChannel,
  getRuleById, pruneSnoozeTokens, snoozeByLink, snoozeLinkView, snoozeRule, snoozeRuleUntilUnsnoozed, snoozeTokenKnown, UNTIL_UNSNOOZED, unsnoozeRule
} from './notifications/index.js';
export {
  catalog, createQueuePool, createQueues, createWorker, deliveryJobId, type DeliveryPayload, executionJobId, type ExecutionPayload,
  keepCompleted, openQueue, type QueueConnection, type QueueLossReason, type Queues, queueSentinelKey, watchQueueLoss
} from './queues/index.js';
export {
  announce, createRuntime, HEARTBEAT_STALE_SECONDS, operatorEndpoints, type OperatorEndpoints, repeat, runService, watchDeadWorkers, type Runtime, serveScrapes,
  serviceLogger, startHeartbeat, startUp, storesEnv, supervisedWorkers, SUPERVISED_ENV, WORKER_KINDS
} from './runtime/index.js';
export { requestSchemas } from './request-schemas.js';
export { parseTraceparent, startTracing, type OpenSpan, type RequestSpan, type SpanAttributes, type Tracing } from './tracing/index.js';
export { ClaimsInHand, runAttempt, type RunOutcome } from './runners/index.js';
export { fireDueJobs } from './schedules/index.js';
export { createSecret, deleteSecret, findSecret, listSecrets, serializeSecret, updateSecret } from './secrets/index.js';
export {
  generateSigningKey, getSigningKey, loadSigningKeys, openSigningKey, rotateSigningKey, signingKeyBytes, signingKeyPlace
} from './signatures/index.js';
export { MAX_REQUEST_JSON_DEPTH, requestTooDeep, textNestedDeeperThan, storableValue, validate } from './validation/index.js';
export {
  checkTriggerSecret, decideApproval, expireWaits, findTrigger, getApproval, getJobContext, parseInboundBody, patchJobContext, resumeByToken,
  startTriggeredRun, type TriggerJob, unknownResumeToken, waitTokenKnown
} from './workflows/index.js';
export {
  clientNetwork, createApiToken, createRateLimiter, createWorkspace, ensureBootstrapWorkspace, listApiTokens, pruneRateLimitWindows,
  publicRateLimitKey, serializeApiToken, type RateLimiter, type RateLimitState, type RateLimitStore, revokeApiToken, secretsEqual
} from './workspaces/index.js';
