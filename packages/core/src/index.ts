// The entry point of @cronsvc/core: what the apps, bench/, scripts/ and tests may use, domain by
// domain. Each domain's index.ts names its public part; everything else in a domain is internal.
// The API's wire shapes (types, kinds, statuses, error codes) are in @cronsvc/contracts.

export { loadConfig, type QueueBackendName } from './config/index.js';
export { type Db, type EmbeddedPostgres, type JobRow, Prisma, type SqlPool, startEmbeddedPostgres } from './db/index.js';
export {
  listDeliveries, reconcileDeliveries, retryDelivery, SEND_TIMEOUT_MS, sendDelivery, serializeDelivery
} from './deliveries/index.js';
export { dlqStats, listDlq, purgeDlq, removeFromDlq, replayBatch, replayExecution } from './dlq/index.js';
export { AppError, isUnavailable } from './errors/index.js';
export {
  executionRow, type ExecutionWithAttempts, getExecution, listExecutions, parkExecution, pruneExecutions, reconcileQueue, resumeExecution,
  retentionCutoff, runAttempt, runNow, type RunOutcome, serializeExecution
} from './executions/index.js';
export { createHttpClient, type HttpClient, type HttpResult } from './http/index.js';
export { newId } from './ids/index.js';
export {
  createJob, deleteJob, findJob, importCrontab, type JobInput, jobSchema, listJobs, pauseJob, resumeJob, serializeJob, updateJob
} from './jobs/index.js';
export { createLogger, type Logger, withLogContext } from './logging/index.js';
export { httpRequestDuration, httpRequests, markProcess, observeDelivery, processRegistry } from './metrics/index.js';
export {
  createMonitor, deleteMonitor, findMonitor, listMonitors, pauseMonitor, pruneMonitorDeliveries, recordPing, resumeMonitor,
  serializeMonitor, SWEEP_SQL, sweepMonitors, updateMonitor
} from './monitors/index.js';
export {
  createChannel, createMailer, createRule, decryptCredentials, deleteChannel, deleteRule, findChannel, listChannels, listRules,
  type Mailer, relayEvents, type RuleOwner, serializeChannel, serializeRule, testChannel, updateChannel
} from './notifications/index.js';
export {
  catalog, createQueuePool, createQueues, createWorker, deliveryJobId, type DeliveryPayload, executionJobId, type ExecutionPayload,
  keepCompleted, openQueue, type QueueConnection, type Queues
} from './queues/index.js';
export {
  announce, type Clock, createRuntime, type Deps, freePort, HEARTBEAT_STALE_SECONDS, operatorEndpoints, type OperatorEndpoints,
  processAlive, runService, type Runtime, serveScrapes, serviceLogger, startHeartbeat, startUp, storesEnv, supervisedWorkers, SUPERVISED_ENV, WORKER_KINDS
} from './runtime/index.js';
export { requestSchemas } from './request-schemas.js';
export { fireDueJobs } from './schedules/index.js';
export { createSecret, deleteSecret, findSecret, listSecrets, serializeSecret, updateSecret } from './secrets/index.js';
export {
  generateSigningKey, getSigningKey, loadSigningKeys, openSigningKey, rotateSigningKey, signingKeyBytes
} from './signatures/index.js';
export { MAX_REQUEST_JSON_DEPTH, textNestedDeeperThan, validate } from './validation/index.js';
export {
  decideApproval, expireWaits, getApproval, getJobContext, parseInboundBody, patchJobContext, receiveTrigger, resumeByToken
} from './workflows/index.js';
export {
  createApiToken, createRateLimiter, createWorkspace, ensureBootstrapWorkspace, hashToken, type RateLimitStore, revokeApiToken,
  secretsEqual, workspaceForToken
} from './workspaces/index.js';
