import type { ApprovalStep, ErrorClass, Step, WaitStep } from '@cronsvc/contracts';
import type { AttemptVerdict } from '../attempts/decide-attempt.js';
import type { JsonPathBudget } from '../attempts/json-path.js';
import { hashToken, newToken } from '../ids/ids.js';
import { approvalUrls, resumeUrl } from '../jobs/public-urls.js';
import { renderStepString } from '../templates/step-template.js';
import { approvalRequiredEvent } from '../workflows/approval-required.js';
import { extractValues } from '../workflows/extract-values.js';
import type { Run, StepRow } from '../workflows/load-run.js';
import type { FinalState, StepAttemptWrite, TurnRecord } from '../workflows/record-turn.js';

/**
 * The step runner's decisions (docs/adr/010-step-driven-executions.md): what one move of a run
 * records, given the run, its current step and what happened. Pure functions of their arguments
 * (a new wait's token is the only thing made here), so every rule of a run is testable without a
 * database; the step runner does the I/O around them.
 */

/** What the planners need of the service's settings. */
export interface PlanSettings {
  /** The lease a run going on to its next step keeps (EXECUTION_LEASE_MS). */
  leaseMs: number;
  publicBaseUrl: string;
}

export interface Plan {
  rec: TurnRecord;
  /** Set when the run goes on with the next step in this worker. */
  next?: { index: number; context: Record<string, unknown> };
  /** When the next turn is due, for an http step retried after its backoff. */
  retryAt?: Date;
  /** The same move recorded as a failure, for when the context store refuses the step's values. */
  onContextLimit?: (message: string) => Plan;
}

export type StepWrite = NonNullable<TurnRecord['step']>;

/** An http step's attempt as sent and judged (runners/http-step.ts). */
export interface HttpStepAttempt {
  attempt: StepAttemptWrite;
  verdict: AttemptVerdict;
  /** The response body (secrets masked) parsed as JSON, for extract; undefined without a JSON body. */
  document: unknown;
  response: { statusCode: number; bodyPreview: string | null } | null;
  /** What is left of the attempt's JSONPath budget, for the step's extraction. */
  budget: JsonPathBudget;
}

// An http step's output keeps its body as JSON when it is JSON and no bigger than this; otherwise the preview text.
const MAX_OUTPUT_BODY_BYTES = 64 * 1024;

export function stepWrite(run: Run, step: Step, fields: Partial<StepWrite> & Pick<StepWrite, 'status' | 'startedAt'>): StepWrite {
  const row = run.current;
  return {
    id: row?.id,
    stepIndex: run.index,
    stepId: step.id,
    type: step.type,
    attemptCount: row?.attemptCount ?? 0,
    output: null,
    extracted: null,
    errorClass: null,
    errorMessage: null,
    tokenHash: row?.tokenHash ?? null,
    waitingPayload: row?.waitingPayload ?? null,
    expiresAt: row?.expiresAt ?? null,
    finishedAt: null,
    ...fields,
  };
}

export function finish(run: Run, final: FinalState, extra: Partial<TurnRecord> = {}, context = run.context): Plan {
  return { rec: { index: run.index, context, state: { status: 'final', final }, ...extra } };
}

/**
 * A failure of the current step that ends the run with the same class. `response` is the HTTP
 * response this move got, if any; without one the run's last response is reported.
 */
export function failStep(run: Run, step: Step, errorClass: ErrorClass, message: string, now: Date, failing: StepWrite, extra: Partial<TurnRecord> = {}, response?: FinalState['response']): Plan {
  const failed: StepWrite = { ...failing, status: 'failed', errorClass, errorMessage: message, finishedAt: now };
  return finish(run, { status: 'failed', errorClass, errorMessage: `step "${step.id}": ${message}`, response }, { ...extra, step: failed });
}

/** The run is past max_workflow_duration_seconds: it fails WORKFLOW_TIMEOUT, with the step in progress. */
export function planTimeout(run: Run, now: Date): Plan {
  const seconds = Math.round((run.deadline.getTime() - run.exe.startedAt.getTime()) / 1000);
  const message = `the run did not finish within max_workflow_duration_seconds (${seconds} s)`;
  const step = run.steps[run.index];
  const row = run.current;
  const final: FinalState = { status: 'failed', errorClass: 'WORKFLOW_TIMEOUT', errorMessage: message };
  // The step in progress (an http step between attempts, a wait) fails with the run.
  if (!step || !row || (row.status !== 'running' && row.status !== 'waiting')) return finish(run, final);
  return finish(run, final, { step: stepWrite(run, step, { ...row, status: 'failed', errorClass: 'WORKFLOW_TIMEOUT', errorMessage: message, finishedAt: now }) });
}

/** A step that completed: its values extracted, then the next step in this worker, or the run's success. */
export function planSuccess(
  settings: PlanSettings,
  run: Run,
  step: Step,
  done: StepWrite,
  document: unknown,
  now: Date,
  extra: Partial<TurnRecord> = {},
  response?: FinalState['response'],
  budget?: JsonPathBudget,
): Plan {
  const failAsLimit = (message: string) => failStep(run, step, 'CONTEXT_LIMIT_EXCEEDED', message, now, done, extra, response);
  const extraction = extractValues(step, document, run.context, budget);
  if ('problem' in extraction) return failAsLimit(extraction.problem);
  const records = { ...extra, step: { ...done, status: 'succeeded', extracted: extraction.extracted, finishedAt: now }, storeChanges: extraction.storeChanges };
  if (run.index + 1 >= run.steps.length) {
    return { ...finish(run, { status: 'succeeded', errorClass: null, errorMessage: null, response }, records, extraction.context), onContextLimit: failAsLimit };
  }
  const next = { index: run.index + 1, context: extraction.context };
  return {
    rec: { ...records, index: next.index, context: next.context, state: { status: 'running', leaseMs: settings.leaseMs, nextAttemptAt: now } },
    next,
    onContextLimit: failAsLimit,
  };
}

function httpOutput(made: HttpStepAttempt): unknown {
  if (made.attempt.statusCode === null) return null;
  const fits = made.document !== undefined && Buffer.byteLength(JSON.stringify(made.document)) <= MAX_OUTPUT_BODY_BYTES;
  return { status_code: made.attempt.statusCode, body: fits ? made.document : made.attempt.bodyPreview };
}

/** An http step's attempt, judged: retried at the verdict's retryAt (backoff or Retry-After, never past the deadline), failed, or completed. */
export function planHttpOutcome(settings: PlanSettings, run: Run, step: Step, made: HttpStepAttempt, startedAt: Date, now: Date): Plan {
  const number = made.attempt.number;
  const running = stepWrite(run, step, { status: 'running', attemptCount: number, startedAt, output: httpOutput(made) });
  const { verdict, attempt } = made;
  if (verdict.outcome === 'retry') {
    // A retry due after the deadline is due at it (retry-at.ts), and the next turn times the run out.
    const { retryAt } = verdict;
    return { rec: { index: run.index, context: run.context, state: { status: 'running', leaseMs: null, nextAttemptAt: retryAt }, step: running, attempt }, retryAt };
  }
  // An attempt without a response reports the run's last response, as a request job reports its last.
  const response = made.response ?? undefined;
  if (verdict.outcome === 'failed') return failStep(run, step, verdict.errorClass, verdict.errorMessage ?? 'failed', now, running, { attempt }, response);
  return planSuccess(settings, run, step, running, made.document, now, { attempt }, response, made.budget);
}

/** A wait or approval step starts: a token, its URL(s), its expiry (never past the deadline), and an approval's announcement. */
export function planEnterWait(settings: PlanSettings, run: Run, step: WaitStep | ApprovalStep, now: Date): Plan {
  const base = settings.publicBaseUrl;
  const token = newToken(step.type === 'approval' ? 'apr_' : 'rsm_');
  const timeoutAt = step.timeout_seconds === undefined ? run.deadline.getTime() : now.getTime() + step.timeout_seconds * 1000;
  const expiresAt = new Date(Math.min(timeoutAt, run.deadline.getTime()));
  const where = { step_id: step.id, step_index: run.index };
  const message =
    step.type === 'approval'
      ? renderStepString(step.message, { ...run.exe.variables, execution_id: run.exe.id, secrets: new Map(), context: run.context, trigger: run.trigger })
      : '';
  const payload = step.type === 'approval' ? { ...where, message, ...approvalUrls(base, token) } : { ...where, resume_url: resumeUrl(base, token) };
  const waiting = stepWrite(run, step, { status: 'waiting', tokenHash: hashToken(token), waitingPayload: payload, expiresAt, startedAt: now });
  const approval =
    step.type === 'approval'
      ? approvalRequiredEvent({
          job: { id: run.exe.jobId, name: run.exe.jobName },
          executionId: run.exe.id,
          stepId: step.id,
          stepIndex: run.index,
          message,
          expiresAt,
          urls: approvalUrls(base, token),
          at: now,
        })
      : undefined;
  const reason = step.type === 'approval' ? 'approval' : 'webhook';
  return { rec: { index: run.index, context: run.context, state: { status: 'waiting', reason, payload, expiresAt }, step: waiting, approval } };
}

/** A wait that was resumed, decided or expired: completed, or failed per its on_timeout. */
export function planWaitOutcome(settings: PlanSettings, run: Run, step: WaitStep | ApprovalStep, row: StepRow, now: Date): Plan {
  const done = stepWrite(run, step, { ...row });
  const waited = `${Math.round(((row.expiresAt ?? now).getTime() - row.startedAt.getTime()) / 1000)} s`;
  if (step.type === 'wait_for_webhook') {
    if (row.decision === 'timed_out' && step.on_timeout === 'fail') return failStep(run, step, 'WAIT_TIMEOUT', `no call to its resume URL within ${waited}`, now, done);
    const payload = row.decision === 'resumed' ? row.input : null;
    return planSuccess(settings, run, step, { ...done, output: payload }, payload, now);
  }
  if (row.decision === 'rejected') return failStep(run, step, 'APPROVAL_REJECTED', 'the approval was rejected', now, done);
  if (row.decision === 'expired' && step.on_timeout === 'reject') return failStep(run, step, 'APPROVAL_EXPIRED', `no decision within ${waited}`, now, done);
  const decision = { decision: row.decision, approved: true, decided_at: row.decidedAt?.toISOString() ?? null, input: row.input ?? null };
  return planSuccess(settings, run, step, { ...done, output: decision }, decision, now);
}

/** The run ends RECORD_FAILED: the current step (if there is one) fails with it, and nothing is sent. */
export function planUnrecorded(run: Run, verdict: AttemptVerdict, now: Date): Plan {
  const step = run.steps[run.index];
  const message = verdict.errorMessage ?? 'the outcome could not be stored';
  if (!step) return finish(run, { status: 'failed', errorClass: 'RECORD_FAILED', errorMessage: message });
  return failStep(run, step, 'RECORD_FAILED', message, now, stepWrite(run, step, { status: 'running', startedAt: run.current?.startedAt ?? now }));
}
