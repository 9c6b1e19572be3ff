import { STEP_TYPES, type StepType } from '@cronsvc/contracts';
import Joi from 'joi';
import { jsonPathProblem } from '../attempts/json-path.js';
import { CONTEXT_KEY } from '../templates/step-template.js';

/**
 * The steps of a step-driven job (docs/JOBS.md, "Steps"). Built from the request schema that the
 * job schema passes in, so an http step's url, method, headers, timeout and response checks are
 * validated exactly like a request job's (and any hardening of those rules applies to both),
 * without this module importing the job schema back.
 */

/** Step ids name steps in records and URLs. */
export const STEP_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_STEPS = 50;
export const MAX_EXTRACTS = 50;
/** A wait may be as long as the longest run (max_workflow_duration_seconds is at most 7200). */
export const MAX_WAIT_SECONDS = 7200;
const MAX_JSON_DEPTH = 64;


function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depthOf(child));
  return deepest + 1;
}

const jsonPath = Joi.string()
  .max(500)
  .custom((value: string, helpers) => {
    const problem = jsonPathProblem(value);
    return problem ? helpers.message({ custom: `is not a valid JSONPath: ${problem}` }) : value;
  });

const extractMap = Joi.object()
  .pattern(CONTEXT_KEY, jsonPath)
  .max(MAX_EXTRACTS)
  .messages({ 'object.unknown': 'is not a valid context key (1 to 128 letters, digits, _ or -)' });

const waitSeconds = Joi.number().integer().min(1).max(MAX_WAIT_SECONDS);

const common = {
  id: Joi.string().pattern(STEP_ID).required().messages({ 'string.pattern.base': 'must be 1 to 64 letters, digits, _ or -' }),
  type: Joi.string().valid(...STEP_TYPES).required(),
  extract: extractMap,
  extract_to_context: extractMap,
};

/** The schema of each step type, without the `type` rule that picks it. */
export function buildStepSchemas(request: Joi.ObjectSchema): Record<StepType, Joi.ObjectSchema> {
  const http = Joi.object({
    ...common,
    url: request.extract('url'),
    method: request.extract('method'),
    headers: request.extract('headers'),
    body_template: Joi.alternatives(Joi.object(), Joi.array(), Joi.string())
      .allow(null)
      .custom((value: unknown, helpers) => (depthOf(value) > MAX_JSON_DEPTH ? helpers.message({ custom: `is nested deeper than ${MAX_JSON_DEPTH} levels` }) : value))
      .messages({ 'alternatives.types': 'must be an object, an array or a string' }),
    timeout_seconds: request.extract('timeout_seconds'),
    success_statuses: request.extract('success_statuses'),
    response_matcher: request.extract('response_matcher'),
    response_assertions: request.extract('response_assertions'),
  });
  const wait = Joi.object({ ...common, timeout_seconds: waitSeconds, on_timeout: Joi.string().valid('fail', 'continue').default('fail') });
  const approval = Joi.object({
    ...common,
    message: Joi.string().trim().min(1).max(4000).required(),
    timeout_seconds: waitSeconds,
    on_timeout: Joi.string().valid('reject', 'approve').default('reject'),
  });
  return { http, wait_for_webhook: wait, approval };
}

export function buildStepsSchema(request: Joi.ObjectSchema): Joi.ArraySchema {
  const schemas = buildStepSchemas(request);
  const step = Joi.alternatives().conditional('.type', {
    switch: STEP_TYPES.map((type) => ({ is: type, then: schemas[type] })),
    // No known type: report the type (and a missing id) rather than every other field.
    otherwise: Joi.object(common).unknown(true),
  });
  return Joi.array()
    .items(step)
    .min(1)
    .max(MAX_STEPS)
    .unique('id', { ignoreUndefined: true })
    .messages({ 'array.unique': 'has the same id as an earlier step; step ids must be unique' });
}
