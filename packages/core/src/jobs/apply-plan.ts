import type { ApplyResult } from '@cronsvc/contracts';
import Joi from 'joi';
import type { Config } from '../config/config.js';
import type { JobRow } from '../db/client.js';
import { AppError, type ErrorDetail } from '../errors/app-error.js';
import { validate } from '../validation/validate.js';
import { checkJobTargets } from './check-job-targets.js';
import { jobReferences, referenceProblems, type JobReferences } from './check-job-references.js';
import { checkStepTimeouts } from './check-step-timeouts.js';
import { jobDocument } from './job-document.js';
import { changedFields, normalJob } from './job-diff.js';
import type { JobInput } from './job-schema.js';
import { tagSchema } from './job-tags.js';
import { webhookSecretMatches } from './webhook-credentials.js';

/**
 * What POST /v1/jobs/apply would do (docs/JOBS-AS-CODE.md): the document checked whole, every
 * problem of every job reported at once under `jobs[i]`, and each job matched by key to what is
 * stored. Pure once the stored jobs and the workspace's secrets are read: apply-jobs.ts does the
 * reading and the writing.
 */

/** Jobs one apply takes: a document well inside the 1 MB request body. */
export const MAX_APPLY_JOBS = 5000;

export const applySchema = Joi.object({
  jobs: Joi.array().items(Joi.any()).max(MAX_APPLY_JOBS).required(),
  prune: Joi.boolean().default(false),
  prune_tag: tagSchema,
  dry_run: Joi.boolean().default(false),
});

export interface ApplyBody {
  jobs: unknown[];
  prune: boolean;
  prune_tag?: string;
  dry_run: boolean;
}

/** A job of the document, valid on its own. */
export interface GivenJob {
  index: number;
  key: string;
  input: JobInput;
  /** Whether the document gives `state`: left out, a stored job keeps its own. */
  stateGiven: boolean;
  secretGiven: boolean;
  references: JobReferences;
}

export interface PlannedChange {
  given: GivenJob;
  /** Null for a job to create. */
  current: JobRow | null;
  /** The top-level fields that change (empty: unchanged). */
  fields: string[];
}

export interface ApplyPlan {
  changes: PlannedChange[];
  deleted: JobRow[];
}

const named = (key: string | undefined, message: string) => (key ? `${message} (job "${key}")` : message);

/** Runs a check that throws validation_failed, adding its problems under `jobs[i]` instead. */
function collect(problems: ErrorDetail[], index: number, key: string | undefined, check: () => void): void {
  try {
    check();
  } catch (error) {
    if (!(error instanceof AppError) || !error.details) throw error;
    const prefix = `jobs[${index}]`;
    for (const d of error.details) problems.push({ path: d.path.startsWith(prefix) ? d.path : `${prefix}.${d.path}`, message: named(key, d.message) });
  }
}

/** Each job of the document validated on its own (schema, targets, placeholders), and keys given once each. */
export function givenJobs(config: Pick<Config, 'allowPrivateTargets'>, body: ApplyBody): { jobs: GivenJob[]; problems: ErrorDetail[] } {
  const problems: ErrorDetail[] = [];
  const jobs: GivenJob[] = [];
  const seen = new Map<string, number>();
  body.jobs.forEach((doc, index) => {
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
      problems.push({ path: `jobs[${index}]`, message: 'must be a job object' });
      return;
    }
    const raw = doc as Record<string, unknown>;
    const key = typeof raw.key === 'string' ? raw.key : undefined;
    if (raw.key === undefined || raw.key === null) problems.push({ path: `jobs[${index}].key`, message: 'is required: apply matches jobs by key' });
    else if (key !== undefined && seen.has(key)) problems.push({ path: `jobs[${index}].key`, message: named(key, `repeats the key of jobs[${seen.get(key)}]`) });
    if (key !== undefined && !seen.has(key)) seen.set(key, index);
    let input: JobInput | undefined;
    collect(problems, index, key, () => {
      input = normalJob(raw, { prefix: `jobs[${index}]` }) as unknown as JobInput;
    });
    if (!input || key === undefined || input.key !== key) return;
    const valid = input;
    collect(problems, index, key, () => checkJobTargets(config, valid));
    const references = jobReferences(valid);
    for (const p of references.problems) problems.push({ path: `jobs[${index}].${p.path}`, message: named(key, p.message) });
    jobs.push({ index, key, input: valid, stateGiven: raw.state !== undefined, secretGiven: raw.webhook_secret !== undefined, references: { ...references, problems: [] } });
  });
  return { jobs, problems };
}

/** The stored job in normal form, for the comparison; one stored before a rule it breaks is compared as stored. */
function storedNormal(job: JobRow): Record<string, unknown> {
  try {
    return normalJob(jobDocument(job));
  } catch (error) {
    if (error instanceof AppError) return jobDocument(job);
    throw error;
  }
}

/** Which fields of a stored job a given one changes; the write-only secret changes when it is not the one stored. */
function fieldsChanged(key: Buffer, current: JobRow, given: GivenJob): string[] {
  const fields = changedFields(storedNormal(current), given.input as unknown as Record<string, unknown>);
  if (given.input.kind === 'webhook_trigger' && given.secretGiven) {
    const secret = given.input.webhook_secret;
    const same = secret ? current.webhookSecretHash !== null && webhookSecretMatches(key, current.webhookSecretHash, secret) : current.webhookSecretHash === null;
    if (!same || current.kind !== 'webhook_trigger') fields.push('webhook_secret');
  }
  return fields;
}

/** The problems of each job's secret references, once the workspace's secrets are read. */
export function secretProblems(jobs: GivenJob[], secrets: Map<string, number>): ErrorDetail[] {
  return jobs.flatMap((given) =>
    referenceProblems(given.references, secrets).map((p) => ({ path: `jobs[${given.index}].${p.path}`, message: named(given.key, p.message) })),
  );
}

/** The rules that depend on what is stored: states, a run_at being set, step timeouts. */
function storedRules(change: PlannedChange, now: Date): ErrorDetail[] {
  const { given, current, fields } = change;
  const out: ErrorDetail[] = [];
  const at = (path: string, message: string) => out.push({ path: `jobs[${given.index}].${path}`, message: named(given.key, message) });
  const { input } = given;
  if (input.state === 'completed' && current?.state !== 'completed') at('state', current ? 'a job cannot be set to completed; it completes by running' : 'a new job cannot be completed');
  if (current?.state === 'completed' && current.kind === 'one_time' && input.state === 'active') at('state', 'a completed one_time job cannot be reactivated; use run-now');
  const scheduleSet = !current || fields.includes('schedule') || fields.includes('kind') || (fields.includes('state') && input.state === 'active');
  const runAt = (input.schedule as { run_at?: string } | undefined)?.run_at;
  if (scheduleSet && input.kind === 'scheduled' && runAt && new Date(runAt).getTime() <= now.getTime()) at('schedule.run_at', 'must be in the future');
  if (!current || ['steps', 'max_workflow_duration_seconds', 'kind'].some((f) => fields.includes(f))) {
    const problems: ErrorDetail[] = [];
    collect(problems, given.index, given.key, () => checkStepTimeouts(input));
    out.push(...problems);
  }
  return out;
}

/**
 * Matches the given jobs to the stored keyed ones and lists what changes, or throws one
 * validation_failed naming every problem. A given job without `state` keeps the stored one.
 */
export function planApply(options: {
  body: ApplyBody;
  jobs: GivenJob[];
  stored: JobRow[];
  now: Date;
  encryptionKey: Buffer;
}): ApplyPlan {
  const { body, jobs, stored, now, encryptionKey } = options;
  const byKey = new Map(stored.map((job) => [job.key as string, job]));
  const problems: ErrorDetail[] = [];
  const changes = jobs.map((given): PlannedChange => {
    const current = byKey.get(given.key) ?? null;
    if (current && !given.stateGiven) given.input = { ...given.input, state: current.state as JobInput['state'] };
    const fields = current ? fieldsChanged(encryptionKey, current, given) : [];
    const change = { given, current, fields };
    problems.push(...storedRules(change, now));
    return change;
  });
  if (problems.length > 0) throw AppError.validation(problems);
  const givenKeys = new Set(jobs.map((j) => j.key));
  const deleted = body.prune
    ? stored.filter((job) => !givenKeys.has(job.key as string) && (body.prune_tag === undefined || (job.tags as string[]).includes(body.prune_tag)))
    : [];
  return { changes, deleted };
}

/** The answer of an apply: keys in document order, deletions sorted. */
export function applyResult(plan: ApplyPlan): ApplyResult {
  return {
    created: plan.changes.filter((c) => !c.current).map((c) => c.given.key),
    updated: plan.changes.filter((c) => c.current && c.fields.length > 0).map((c) => ({ key: c.given.key, fields: c.fields })),
    deleted: plan.deleted.map((j) => j.key as string).sort(),
    unchanged: plan.changes.filter((c) => c.current && c.fields.length === 0).map((c) => c.given.key),
  };
}

/** Whether an update must plan its next run again (as PATCH does): its schedule, kind or state changes. */
export function replans(change: PlannedChange): boolean {
  return ['schedule', 'kind', 'state'].some((f) => change.fields.includes(f));
}

/** The validated envelope of an apply body. */
export const applyBody = (body: unknown) => validate<ApplyBody>(applySchema, body);
