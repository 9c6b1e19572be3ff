import type Joi from 'joi';
import { validate } from '../validation/validate.js';
import { jobSchema } from './job-schema.js';
import { defaultMaxConcurrency } from './job-plan.js';

/**
 * The per-field comparison of apply (docs/JOBS-AS-CODE.md, "What counts as a change"). Pure: no
 * clock, no database. Two definitions are the same job when they are equal once each is in its
 * normal form: every default written out, tags sorted, and the fields the service sets left out.
 * So `"method": "GET"` and no method, headers in another order, and a copy of GET /v1/jobs/:id
 * with its id and timestamps all compare equal to what is stored.
 */

/** Fields of a job as shown that the service sets: an apply document may carry them, and they are ignored. */
export const SERVER_SET_FIELDS: readonly string[] = [
  'id', 'next_run_at', 'created_at', 'updated_at', 'webhook_token', 'trigger_url', 'webhook_secret_configured', 'idempotency_key', 'badge_url',
];

/** The fields compared; `key` matches jobs and never changes, the write-only `webhook_secret` is compared by the apply itself. */
export const COMPARED_FIELDS: readonly string[] = [
  'name', 'kind', 'state', 'schedule', 'request', 'steps', 'retry_policy', 'max_concurrent_executions', 'max_workflow_duration_seconds',
  'overlap_policy', 'catch_up_policy', 'jitter_seconds', 'on_success_url', 'on_failure_url', 'notification_override', 'tags',
];

type Doc = Record<string, unknown>;

/** The document without the fields the service sets. */
export function withoutServerFields(doc: Doc): Doc {
  const out: Doc = {};
  for (const [field, value] of Object.entries(doc)) if (!SERVER_SET_FIELDS.includes(field)) out[field] = value;
  return out;
}

// A run_at that has passed is still the same schedule: whether a schedule may be set is the apply's
// question, not the comparison's.
const LONG_AGO = { now: new Date(0) };

/**
 * A job definition in its normal form, or a validation_failed AppError naming what is wrong (paths
 * after `prefix`). Validation fills every default; the concurrency cap's default depends on the kind.
 */
export function normalJob(doc: Doc, options: { prefix?: string; context?: Record<string, unknown>; schema?: Joi.Schema } = {}): Doc {
  const value = validate<Doc>(options.schema ?? jobSchema, withoutServerFields(doc), { prefix: options.prefix, context: options.context ?? LONG_AGO });
  value.max_concurrent_executions ??= defaultMaxConcurrency(String(value.kind));
  if (value.key === null) delete value.key;
  return value;
}

/** Deep equality of JSON values in which the order of an object's keys does not count (an array's order does). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b || (isAbsent(a) && isAbsent(b));
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => sameJson(item, other[i]));
  }
  const left = a as Doc;
  const right = b as Doc;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) if (!sameJson(left[key], right[key])) return false;
  return true;
}

const isAbsent = (v: unknown) => v === undefined;

/** The top-level fields whose values differ between two definitions already in normal form, in COMPARED_FIELDS order. */
export function changedFields(current: Doc, desired: Doc): string[] {
  return COMPARED_FIELDS.filter((field) => !sameJson(current[field], desired[field]));
}

/** changedFields of two documents as written: each is first put in its normal form (throws on an invalid one). */
export function diffJobDocuments(current: Doc, desired: Doc): string[] {
  return changedFields(normalJob(current), normalJob(desired));
}
