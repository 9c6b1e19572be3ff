// The joi schemas the API validates its requests with, gathered for the OpenAPI document
// (apps/api/src/openapi/): the document's request bodies and query parameters are generated
// from these, so they cannot drift from what the API accepts.
import { JOB_KINDS, STEP_TYPES, type JobKind, type StepType } from '@cronsvc/contracts';
import Joi from 'joi';
import { schema as purgeSchema } from './dlq/purge-dlq.js';
import { snoozeLinkQuery, snoozeSchema } from './notifications/snooze.js';
import { schema as replayBatchSchema } from './dlq/replay-batch.js';
import { querySchema as deliveryListQuery } from './deliveries/deliveries-api.js';
import { querySchema as jobStatsQuery } from './executions/job-stats.js';
import { querySchema as executionListQuery } from './executions/list-executions.js';
import { jobQuerySchema as jobFireListQuery, workspaceQuerySchema as fireListQuery } from './fires/list-fires.js';
import { hostLimitQuerySchema, hostLimitSchema } from './hosts/host-limits.js';
import { importSchema } from './jobs/import-crontab.js';
import { applySchema } from './jobs/apply-plan.js';
import { tagSchema } from './jobs/job-tags.js';
import { jobSchemaOfKind, requestSchema, stepSchemaOfType } from './jobs/job-schema.js';
import { querySchema as jobListQuery } from './jobs/list-jobs.js';
import { pagingKeys } from './lists/paging.js';
import { pingQuerySchema as monitorPingList, querySchema as monitorListQuery } from './monitors/monitor-store.js';
import { createSchema as monitorCreate, patchSchema as monitorPatch } from './monitors/save-monitor.js';
import { CHANNEL_ADAPTERS } from './notifications/adapters/index.js';
import { schemas as ruleSchemas } from './notifications/rules.js';
import { createSchema as channelCreate, patchSchema as channelPatch } from './notifications/save-channel.js';
import { createSecretSchema } from './secrets/create-secret.js';
import { updateSecretSchema } from './secrets/update-secret.js';
import { patchSchema as jobContextPatch } from './workflows/job-context.js';
import { createWorkspaceSchema } from './workspaces/workspaces.js';
import { createTokenSchema } from './workspaces/tokens.js';
import { auditQuerySchema } from './access/audit.js';

export const requestSchemas = {
  workspaceCreate: createWorkspaceSchema,
  tokenCreate: createTokenSchema,
  auditEventList: auditQuerySchema,
  /** POST /v1/jobs (and PATCH) by kind, and the parts the document names: jobSchema, which validates them, says the same. */
  jobOfKind: Object.fromEntries(JOB_KINDS.map((kind) => [kind, jobSchemaOfKind(kind)])) as Record<JobKind, Joi.ObjectSchema>,
  stepOfType: Object.fromEntries(STEP_TYPES.map((type) => [type, stepSchemaOfType(type)])) as Record<StepType, Joi.ObjectSchema>,
  jobRequest: requestSchema,
  jobImport: importSchema,
  jobList: jobListQuery,
  jobApply: applySchema,
  jobExport: Joi.object({ tag: tagSchema }),
  jobContextPatch,
  executionList: executionListQuery,
  jobStats: jobStatsQuery,
  jobFireList: jobFireListQuery,
  fireList: fireListQuery,
  dlqReplayBatch: replayBatchSchema,
  dlqPurge: purgeSchema,
  hostLimitPut: hostLimitSchema,
  hostLimitList: hostLimitQuerySchema,
  secretCreate: createSecretSchema,
  secretPatch: updateSecretSchema,
  channelCreate,
  channelPatch,
  /** A channel's `config` by its type, as the adapters check it. */
  channelConfigs: Object.fromEntries(Object.entries(CHANNEL_ADAPTERS).map(([type, adapter]) => [type, adapter.configSchema])) as Record<string, Joi.Schema>,
  jobRuleCreate: ruleSchemas.job,
  monitorRuleCreate: ruleSchemas.monitor,
  ruleSnooze: snoozeSchema,
  snoozeLinkQuery,
  deliveryList: deliveryListQuery,
  monitorCreate,
  monitorPatch,
  monitorList: monitorListQuery,
  monitorPingList,
  /** Secrets, channels and rules are listed with paging alone. */
  pageList: Joi.object(pagingKeys),
};
