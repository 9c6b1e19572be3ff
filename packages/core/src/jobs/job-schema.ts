import {
  ASSERTION_OPS, CATCH_UP_POLICIES, DEFAULT_RETRY_ON_STATUSES, DEFAULT_SUCCESS_STATUSES, HTTP_METHODS, JOB_KINDS, JOB_STATES, MAX_JITTER_SECONDS,
  NOTIFICATION_OVERRIDES, OVERLAP_POLICIES, REQUEST_KINDS, SCHEDULED_KINDS, STEP_KINDS,
  type CatchUpPolicy, type JobKind, type JobState, type NotificationOverride, type OverlapPolicy, type RequestSpec, type RetryPolicy, type Schedule, type Step, type StepType,
} from '@cronsvc/contracts';
import Joi from 'joi';
import { CronError, parseCron } from '../schedules/cron.js';
import { requestHeadersSchema } from '../http/request-headers.js';
import { placeholderSafeUrl } from '../templates/template.js';
import { validateAssertions } from '../attempts/response-assertions.js';
import { validateMatcher } from '../attempts/response-matcher.js';
import { validateOutputTemplate } from '../attempts/output-template.js';
import { MAX_JOB_JSON_DEPTH, nestedDeeperThan } from '../validation/json-depth.js';
import { buildStepSchemas, buildStepsSchema } from './step-schema.js';
import { jobKeySchema, tagsSchema } from './job-tags.js';


const statusCode = Joi.number().integer().min(100).max(599);
const statusList = Joi.array().items(statusCode).unique().max(100);

export const urlSchema = Joi.string().max(2048).uri({ scheme: ['http', 'https'] });

// A request URL may hold {{...}} placeholders; it must be a valid URL once they are filled in.
const templatedUrlSchema = Joi.string()
  .max(2048)
  .custom((value: string, helpers) =>
    urlSchema.validate(placeholderSafeUrl(value)).error ? helpers.message({ custom: 'must be a valid http or https URL' }) : value,
  );

export const cronExpression = Joi.string()
  .max(200)
  .custom((value: string, helpers) => {
    try {
      parseCron(value);
      return value;
    } catch (error) {
      if (error instanceof CronError) return helpers.message({ custom: `invalid cron expression: ${error.message}` });
      throw error;
    }
  });

export const regexFlags = Joi.string()
  .pattern(/^[dgimsuvy]*$/)
  .custom((value: string, helpers) => (new Set(value).size === value.length ? value : helpers.message({ custom: 'has a repeated flag' })))
  .messages({ 'string.pattern.base': 'must contain only valid JavaScript regex flags (d, g, i, m, s, u, v, y)' });

/** Runs a problems-listing check as a joi rule, reporting all of them in one message. */
const checkedBy = (check: (value: never) => string[]) => (value: unknown, helpers: Joi.CustomHelpers) => {
  const problems = check(value as never);
  return problems.length === 0 ? value : helpers.message({ custom: problems.join('; ') });
};

/** Any JSON value, nested at most MAX_JOB_JSON_DEPTH levels. */
const jsonValue = () =>
  Joi.any().custom((value: unknown, helpers) =>
    nestedDeeperThan(value, MAX_JOB_JSON_DEPTH) ? helpers.message({ custom: `must not be nested deeper than ${MAX_JOB_JSON_DEPTH} levels` }) : value,
  );

const assertion = (extra: Record<string, Joi.Schema>) =>
  Joi.object({ op: Joi.string().valid(...ASSERTION_OPS).required(), value: jsonValue(), ...extra });

export const responseAssertionsSchema = Joi.object({
  status: Joi.array().items(assertion({})).max(50),
  json: Joi.array().items(assertion({ path: Joi.string().pattern(/^\$/).max(500).required() })).max(50),
  text: Joi.array().items(assertion({})).max(50),
  headers: Joi.array().items(assertion({ name: Joi.string().max(200).required() })).max(50),
}).custom(checkedBy(validateAssertions));

export const responseMatcherSchema = Joi.object({
  success_pattern: Joi.string().max(1000),
  failure_pattern: Joi.string().max(1000),
  flags: regexFlags,
}).custom(checkedBy(validateMatcher));

export const requestSchema = Joi.object({
  url: templatedUrlSchema.required(),
  method: Joi.string().valid(...HTTP_METHODS).default('GET'),
  headers: requestHeadersSchema.default({}),
  body: jsonValue().default(null),
  timeout_seconds: Joi.number().integer().min(1).max(300).default(30),
  success_statuses: statusList.min(1).default(DEFAULT_SUCCESS_STATUSES),
  response_matcher: responseMatcherSchema,
  response_assertions: responseAssertionsSchema,
  response_output_template: Joi.any().custom(checkedBy(validateOutputTemplate)),
});

export const retryPolicySchema = Joi.object({
  max_attempts: Joi.number().integer().min(1).max(10).default(3),
  retry_on_statuses: statusList.default(DEFAULT_RETRY_ON_STATUSES),
});

export const timezoneRejected = Joi.any().forbidden().messages({ 'any.unknown': 'is not supported: cron is always evaluated in UTC' });

const futureIsoTimestamp = Joi.string()
  .isoDate()
  .custom((value: string, helpers) => {
    const time = new Date(value).getTime();
    // Not a date at all: isoDate already reported it, "must be in the future" would only mislead.
    if (Number.isNaN(time)) return value;
    // A time without an offset would depend on the server's time zone (a bare date is UTC).
    if (/T/i.test(value) && !/(Z|[+-]\d{2}:?\d{2})$/i.test(value)) return helpers.message({ custom: 'must carry a time zone designator (Z or an offset such as +02:00)' });
    // Date parses 2030-02-30 as March 2; a day the month does not have is not a timestamp.
    const ymd = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
    if (ymd && Number(ymd[3]) > new Date(Date.UTC(Number(ymd[1]), Number(ymd[2]), 0)).getUTCDate()) {
      return helpers.message({ custom: 'is not a valid calendar date' });
    }
    const now = (helpers.prefs.context?.now as Date | undefined) ?? new Date();
    return time > now.getTime() ? value : helpers.message({ custom: 'must be in the future' });
  });

const scheduleByKind = {
  recurring: Joi.object({ every_n_minutes: Joi.number().integer().min(1).max(1440).required(), timezone: timezoneRejected }).required(),
  cron: Joi.object({ cron: cronExpression.required(), timezone: timezoneRejected }).required(),
  workflow: Joi.object({ cron: cronExpression.required(), timezone: timezoneRejected }).required(),
  scheduled: Joi.object({ run_at: futureIsoTimestamp.required(), timezone: timezoneRejected }).required(),
};

const absentFor = (what: string) => Joi.any().forbidden().messages({ 'any.unknown': `is not used by ${what}` });

const stepsSchema = buildStepsSchema(requestSchema);
/** What max_workflow_duration_seconds is when a step-driven job leaves it out (docs/JOBS.md). */
export const DEFAULT_MAX_WORKFLOW_DURATION_SECONDS = 1800;
const maxWorkflowDuration = Joi.number().integer().min(1).max(7200).default(DEFAULT_MAX_WORKFLOW_DURATION_SECONDS);
const webhookSecret = Joi.string().min(1).max(500).allow(null);
/** A fire policy: on the kinds with a schedule, with its default; on the others a 400. */
const firePolicy = (schema: Joi.Schema, fallback: string | number) =>
  Joi.when('kind', { is: Joi.valid(...SCHEDULED_KINDS), then: schema.default(fallback), otherwise: absentFor('one_time and webhook_trigger jobs') });

/** The whole job as stored, after defaults; create and the result of a PATCH merge are checked against it. */
export const jobSchema = Joi.object({
  name: Joi.string().trim().min(1).max(200).required(),
  kind: Joi.string().valid(...JOB_KINDS).required(),
  state: Joi.string().valid(...JOB_STATES).default('active'),
  schedule: Joi.when('kind', {
    switch: Object.entries(scheduleByKind).map(([kind, schedule]) => ({ is: kind, then: schedule })),
    otherwise: Joi.object({ timezone: timezoneRejected }).forbidden().messages({ 'any.unknown': 'is not used by one_time and webhook_trigger jobs' }),
  }),
  request: Joi.when('kind', { is: Joi.valid(...REQUEST_KINDS), then: requestSchema.required(), otherwise: absentFor('step-driven jobs') }),
  steps: Joi.when('kind', { is: Joi.valid(...STEP_KINDS), then: stepsSchema.required(), otherwise: absentFor('request jobs') }),
  retry_policy: retryPolicySchema.default(),
  max_concurrent_executions: Joi.number().integer().min(0).max(10_000),
  max_workflow_duration_seconds: Joi.when('kind', { is: Joi.valid(...STEP_KINDS), then: maxWorkflowDuration, otherwise: absentFor('request jobs') }),
  overlap_policy: firePolicy(Joi.string().valid(...OVERLAP_POLICIES), 'queue'),
  catch_up_policy: firePolicy(Joi.string().valid(...CATCH_UP_POLICIES), 'one'),
  jitter_seconds: firePolicy(Joi.number().integer().min(0).max(MAX_JITTER_SECONDS), 0),
  on_success_url: urlSchema.allow(null).default(null),
  on_failure_url: urlSchema.allow(null).default(null),
  notification_override: Joi.string().valid(...NOTIFICATION_OVERRIDES).default('inherit'),
  webhook_secret: Joi.when('kind', { is: 'webhook_trigger', then: webhookSecret, otherwise: absentFor('jobs other than webhook_trigger') }),
  key: jobKeySchema.allow(null),
  tags: tagsSchema.default([]),
});

const isStepKind = (kind: JobKind) => (STEP_KINDS as readonly string[]).includes(kind);

/**
 * The body of a job of one kind: jobSchema with its conditions on `kind` resolved, built from the
 * same parts. The OpenAPI document describes POST /v1/jobs with one of these per kind, so that a
 * client generated from it knows which fields each kind takes; the API validates with jobSchema.
 */
export function jobSchemaOfKind(kind: JobKind): Joi.ObjectSchema {
  const schedule = scheduleByKind[kind as keyof typeof scheduleByKind];
  return jobSchema.keys({
    kind: Joi.string().valid(kind).required(),
    schedule: schedule ?? Joi.forbidden(),
    request: isStepKind(kind) ? Joi.forbidden() : requestSchema.required(),
    steps: isStepKind(kind) ? stepsSchema.required() : Joi.forbidden(),
    max_workflow_duration_seconds: isStepKind(kind) ? maxWorkflowDuration : Joi.forbidden(),
    webhook_secret: kind === 'webhook_trigger' ? webhookSecret : Joi.forbidden(),
  });
}

const stepSchemas = buildStepSchemas(requestSchema);

/** One step type's schema, for the OpenAPI document (jobs validate their steps with jobSchema). */
export const stepSchemaOfType = (type: StepType): Joi.ObjectSchema => stepSchemas[type].keys({ type: Joi.string().valid(type).required() });

/** A job body after validation, defaults filled in: what create and update store. */
export interface JobInput {
  name: string;
  kind: JobKind;
  state: JobState;
  schedule?: Schedule;
  request?: RequestSpec;
  steps?: Step[];
  retry_policy: RetryPolicy;
  max_concurrent_executions?: number;
  max_workflow_duration_seconds?: number;
  /** The kinds with a schedule only. */
  overlap_policy?: OverlapPolicy;
  catch_up_policy?: CatchUpPolicy;
  jitter_seconds?: number;
  on_success_url: string | null;
  on_failure_url: string | null;
  notification_override: NotificationOverride;
  webhook_secret?: string | null;
  /** Names the job in apply documents; unique in the workspace (docs/JOBS-AS-CODE.md). */
  key?: string | null;
  /** Sorted, without repeats. */
  tags: string[];
}
