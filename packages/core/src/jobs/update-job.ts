import type { Actor } from '../access/actor.js';
import { fieldsOf, writeAudit } from '../access/audit.js';
import Joi from 'joi';
import type { JobRow } from '../db/client.js';
import { AppError } from '../errors/app-error.js';
import type { Deps } from '../deps/deps.js';
import { validate } from '../validation/validate.js';
import { enqueueCommitted, executionRow, firstAttempt } from '../executions/create-executions.js';
import { SCHEDULED_KINDS, STEP_KINDS } from '@cronsvc/contracts';
import { jobSchema, type JobInput } from './job-schema.js';
import { plannedNextRun } from './job-plan.js';
import { jobColumns } from './job-data.js';
import { checkJobTargets } from './check-job-targets.js';
import { checkJobReferences } from './check-job-references.js';
import { checkStepTimeouts } from './check-step-timeouts.js';
import { webhookColumns } from './webhook-credentials.js';
import { cancelPendingFires, lockJob } from './job-store.js';
import { withinStoredBytes } from '../db/stored-bytes.js';
import { checkKeyFree, keyTakenOnWrite } from './job-keys.js';
import { jobDocument } from './job-document.js';

const UPDATABLE = [
  'name', 'kind', 'schedule', 'request', 'steps', 'retry_policy', 'state', 'max_concurrent_executions',
  'max_workflow_duration_seconds', 'on_success_url', 'on_failure_url', 'notification_override', 'webhook_secret',
  'overlap_policy', 'catch_up_policy', 'jitter_seconds', 'key', 'tags',
];
const FIRE_POLICIES = ['overlap_policy', 'catch_up_policy', 'jitter_seconds'];
const MERGED_OBJECTS = new Set(['request', 'schedule', 'retry_policy']);

const patchShape = Joi.object(Object.fromEntries(UPDATABLE.map((k) => [k, Joi.any()]))).min(1).messages({
  'object.min': 'a PATCH must change at least one field',
});

/** Merges one level deep (docs/API.md, "Conventions"): inner fields replace, an inner null returns the field to its default. */
function mergeObject(current: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const base = current && typeof current === 'object' && !Array.isArray(current) ? { ...(current as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete base[k];
    else base[k] = v;
  }
  return base;
}

const isStepKind = (kind: unknown) => (STEP_KINDS as readonly unknown[]).includes(kind);
const isScheduledKind = (kind: unknown) => (SCHEDULED_KINDS as readonly unknown[]).includes(kind);

function applyPatch(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const next = { ...current };
  // A changed kind takes a schedule of its own shape, so the old one is replaced, not merged;
  // moving between request and step-driven kinds drops the other family's fields too.
  if (patch.kind !== undefined && patch.kind !== current.kind) {
    delete next.schedule;
    if (isStepKind(patch.kind) !== isStepKind(current.kind)) for (const key of ['request', 'steps']) delete next[key];
    // A kind without a schedule has no fire policies: the stored ones go, unless the PATCH sets one (a 400).
    if (!isScheduledKind(patch.kind)) for (const key of FIRE_POLICIES) delete next[key];
  }
  for (const [key, value] of Object.entries(patch)) {
    if (MERGED_OBJECTS.has(key) && next[key] !== undefined && next[key] !== null) next[key] = mergeObject(next[key], value);
    else if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

function allowedStateChange(job: JobRow, next: JobInput): void {
  if (next.state === job.state) return;
  if (next.state === 'completed') throw AppError.invalidState('a job cannot be set to completed; it completes by running');
  if (job.state === 'completed' && job.kind === 'one_time') {
    throw AppError.invalidState('a completed one_time job cannot be reactivated; use run-now');
  }
}

export async function updateJob(deps: Deps, workspaceId: string, jobId: string, body: unknown, actor?: Actor): Promise<JobRow> {
  const patch = validate<Record<string, unknown>>(patchShape, body);
  const now = deps.clock.now();
  // A PATCH that makes the job larger than the workspace's room is refused whole (the update's trigger decides).
  const result = await keyTakenOnWrite(patch.key, () => withinStoredBytes(deps.config.maxStoredBytesPerWorkspace, () => deps.db.$transaction(async (tx) => {
    const job = await lockJob(tx, workspaceId, jobId);
    const merged = applyPatch(jobDocument(job), patch);
    const scheduleTouched = 'schedule' in patch || 'kind' in patch || (patch.state === 'active' && job.state !== 'active');
    // Only a schedule being set now must lie in the future; a stored run_at that has passed stays valid.
    const input = validate<JobInput>(jobSchema, merged, { context: { now: scheduleTouched ? now : new Date(0) } });
    allowedStateChange(job, input);
    // Checked when what it compares changes: a job saved before the rule keeps taking other changes.
    if (['steps', 'max_workflow_duration_seconds', 'kind'].some((field) => field in patch)) checkStepTimeouts(input);
    checkJobTargets(deps.config, input);
    await checkJobReferences(tx, workspaceId, input);
    if (input.key && input.key !== job.key) await checkKeyFree(tx, workspaceId, input.key);

    const replan = scheduleTouched || input.state !== job.state;
    const anchor = replan ? now : job.scheduleAnchor;
    if (replan) await cancelPendingFires(tx, job.id, now);
    const updated = await tx.job.update({
      where: { id: job.id },
      data: {
        ...jobColumns(input, job.idempotencyKey),
        ...webhookColumns(deps.config.secretsEncryptionKey, job, input, job, 'webhook_secret' in patch),
        scheduleAnchor: anchor,
        nextRunAt: replan ? plannedNextRun({ ...input, schedule: input.schedule ?? null, scheduleAnchor: anchor }, now) : job.nextRunAt,
      },
    });
    // A one_time job activated from draft fires its single execution now.
    const fires = updated.kind === 'one_time' && updated.state === 'active' && job.state !== 'active';
    const execution = fires
      ? await tx.execution.create({ data: executionRow({ workspaceId, jobId: job.id, jobName: updated.name, source: 'schedule', scheduledFor: now }) })
      : null;
    await writeAudit(tx, actor, { action: 'job.updated', targetType: 'job', targetId: job.id, changedFields: fieldsOf(patch) });
    return { updated, execution };
  })));
  if (result.execution) await enqueueCommitted(deps, [firstAttempt(result.execution)]);
  return result.updated;
}
