import type { ClaimedExecution } from '../executions/claim-attempt.js';
import { backoffMs } from '../executions/decide-attempt.js';
import { afterCommit, wakeWaitingSiblings, type RunAttemptDeps, type RunOutcome } from '../executions/run-attempt.js';
import { newToken } from '../ids/ids.js';
import { observeRecording } from '../metrics/observe.js';
import { renderStepString } from '../templates/step-template.js';
import { hashToken } from '../workspaces/workspaces.js';
import { approvalRequiredEvent } from './approval-required.js';
import { extractValues } from './extract-values.js';
import { attemptHttpStep } from './http-step.js';
import { loadRun, type Run, type StepRow } from './load-run.js';
import { approvalUrls, resumeUrl } from './public-urls.js';
import { ContextLimitError, recordTurn, type FinalState, type Recorded, type StepAttemptWrite, type TurnRecord } from './record-turn.js';
import type { ApprovalStep, ErrorClass, HttpStep, Step, WaitStep } from '@cronsvc/contracts';

/**
 * The step runner (docs/adr/010-step-driven-executions.md): one turn of a claimed step-driven
 * execution. It runs the current step and records it, goes straight on with the next step while
 * steps complete, and stops when the run waits (for a call, a decision or an http step's backoff),
 * is parked, or ends.
 */

interface Plan {
  rec: TurnRecord;
  /** Set when the run goes on with the next step in this worker. */
  next?: { index: number; context: Record<string, unknown> };
  /** When the next turn is due, for an http step retried after its backoff. */
  retryAt?: Date;
  /** The same move recorded as a failure, for when the context store refuses the step's values. */
  onContextLimit?: (message: string) => Plan;
}

type StepWrite = NonNullable<TurnRecord['step']>;

// An http step's output keeps its body as JSON when it is JSON and no bigger than this; otherwise the preview text.
const MAX_OUTPUT_BODY_BYTES = 64 * 1024;

function stepWrite(run: Run, step: Step, fields: Partial<StepWrite> & Pick<StepWrite, 'status' | 'startedAt'>): StepWrite {
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

function finish(run: Run, final: FinalState, extra: Partial<TurnRecord> = {}, context = run.context): Plan {
  return { rec: { index: run.index, context, state: { status: 'final', final }, ...extra } };
}

/**
 * A failure of the current step that ends the run with the same class. `response` is the HTTP
 * response this move got, if any; without one the run's last response is reported.
 */
function failStep(run: Run, step: Step, errorClass: ErrorClass, message: string, now: Date, failing: StepWrite, extra: Partial<TurnRecord> = {}, response?: FinalState['response']): Plan {
  const failed: StepWrite = { ...failing, status: 'failed', errorClass, errorMessage: message, finishedAt: now };
  return finish(run, { status: 'failed', errorClass, errorMessage: `step "${step.id}": ${message}`, response }, { ...extra, step: failed });
}

function planTimeout(run: Run, now: Date): Plan {
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
function planSuccess(deps: RunAttemptDeps, run: Run, step: Step, done: StepWrite, document: unknown, now: Date, extra: Partial<TurnRecord> = {}, response?: FinalState['response']): Plan {
  const failAsLimit = (message: string) => failStep(run, step, 'CONTEXT_LIMIT_EXCEEDED', message, now, done, extra, response);
  const extraction = extractValues(step, document, run.context);
  if ('problem' in extraction) return failAsLimit(extraction.problem);
  const records = { ...extra, step: { ...done, status: 'succeeded', extracted: extraction.extracted, finishedAt: now }, storeChanges: extraction.storeChanges };
  if (run.index + 1 >= run.steps.length) {
    return { ...finish(run, { status: 'succeeded', errorClass: null, errorMessage: null, response }, records, extraction.context), onContextLimit: failAsLimit };
  }
  const next = { index: run.index + 1, context: extraction.context };
  return {
    rec: { ...records, index: next.index, context: next.context, state: { status: 'running', leaseMs: deps.config.executionLeaseMs, nextAttemptAt: now } },
    next,
    onContextLimit: failAsLimit,
  };
}

function httpOutput(made: { attempt: StepAttemptWrite; document: unknown }): unknown {
  if (made.attempt.statusCode === null) return null;
  const fits = made.document !== undefined && Buffer.byteLength(JSON.stringify(made.document)) <= MAX_OUTPUT_BODY_BYTES;
  return { status_code: made.attempt.statusCode, body: fits ? made.document : made.attempt.bodyPreview };
}

async function planHttp(deps: RunAttemptDeps, run: Run, step: HttpStep): Promise<Plan> {
  const number = (run.current?.attemptCount ?? 0) + 1;
  const startedAt = run.current?.startedAt ?? deps.clock.now();
  const inSlot = deps.inSlot ?? ((work) => work());
  const made = await inSlot(() => attemptHttpStep(deps, run, step, number));
  const now = deps.clock.now();
  const running = stepWrite(run, step, { status: 'running', attemptCount: number, startedAt, output: httpOutput(made) });
  const { verdict, attempt } = made;
  if (verdict.outcome === 'retry') {
    // A backoff that would end after the deadline ends at it, and the next turn times the run out.
    const retryAt = new Date(Math.min(now.getTime() + backoffMs(number, deps.random), run.deadline.getTime()));
    return { rec: { index: run.index, context: run.context, state: { status: 'running', leaseMs: null, nextAttemptAt: retryAt }, step: running, attempt }, retryAt };
  }
  // An attempt without a response reports the run's last response, as a request job reports its last.
  const response = made.response ?? undefined;
  if (verdict.outcome === 'failed') return failStep(run, step, verdict.errorClass, verdict.errorMessage ?? 'failed', now, running, { attempt }, response);
  return planSuccess(deps, run, step, running, made.document, now, { attempt }, response);
}

function planEnterWait(deps: RunAttemptDeps, run: Run, step: WaitStep | ApprovalStep, now: Date): Plan {
  const base = deps.config.publicBaseUrl;
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
function planWaitOutcome(deps: RunAttemptDeps, run: Run, step: WaitStep | ApprovalStep, row: StepRow, now: Date): Plan {
  const done = stepWrite(run, step, { ...row });
  const waited = `${Math.round(((row.expiresAt ?? now).getTime() - row.startedAt.getTime()) / 1000)} s`;
  if (step.type === 'wait_for_webhook') {
    if (row.decision === 'timed_out' && step.on_timeout === 'fail') return failStep(run, step, 'WAIT_TIMEOUT', `no call to its resume URL within ${waited}`, now, done);
    const payload = row.decision === 'resumed' ? row.input : null;
    return planSuccess(deps, run, step, { ...done, output: payload }, payload, now);
  }
  if (row.decision === 'rejected') return failStep(run, step, 'APPROVAL_REJECTED', 'the approval was rejected', now, done);
  if (row.decision === 'expired' && step.on_timeout === 'reject') return failStep(run, step, 'APPROVAL_EXPIRED', `no decision within ${waited}`, now, done);
  const decision = { decision: row.decision, approved: true, decided_at: row.decidedAt?.toISOString() ?? null, input: row.input ?? null };
  return planSuccess(deps, run, step, { ...done, output: decision }, decision, now);
}

async function planMove(deps: RunAttemptDeps, run: Run): Promise<Plan> {
  const now = deps.clock.now();
  if (Math.max(now.getTime(), run.dueAt.getTime()) >= run.deadline.getTime()) return planTimeout(run, now);
  const step = run.steps[run.index];
  if (!step) return finish(run, { status: 'succeeded', errorClass: null, errorMessage: null });
  if (step.type === 'http') return planHttp(deps, run, step);
  const row = run.current;
  if (row && row.status === 'waiting' && row.decision) return planWaitOutcome(deps, run, step, row, now);
  return planEnterWait(deps, run, step, now);
}

async function record(deps: RunAttemptDeps, run: Run, plan: Plan): Promise<{ plan: Plan; recorded: Recorded }> {
  try {
    return { plan, recorded: await recordTurn(deps, run, plan.rec) };
  } catch (error) {
    if (!(error instanceof ContextLimitError) || !plan.onContextLimit) throw error;
    const failed = plan.onContextLimit(`the job's context store refused the values: ${error.message}`);
    return { plan: failed, recorded: await recordTurn(deps, run, failed.rec) };
  }
}

function outcomeOf(recorded: Extract<Recorded, { recorded: true }>): 'succeeded' | 'failed' | 'retry' | 'parked' | 'waiting' {
  if (recorded.status === 'succeeded' || recorded.status === 'failed') return recorded.status;
  if (recorded.status === 'waiting') return recorded.waitingReason === 'manual' ? 'parked' : 'waiting';
  return 'retry';
}

/** One turn of a claimed step-driven execution. */
export async function runStepTurn(deps: RunAttemptDeps, exe: ClaimedExecution): Promise<RunOutcome> {
  const run = await loadRun(deps, exe);
  if (!run) return { skip: 'another worker recorded a turn of this execution since it was claimed' };
  for (;;) {
    const { plan, recorded } = await record(deps, run, await planMove(deps, run));
    if (!recorded.recorded) return { skip: `turn ${run.turn} was recorded by another worker` };
    const { attempt, state } = plan.rec;
    observeRecording(deps.logger, exe, attempt ?? null, state.status === 'final' ? state.final : null, run.turn === 1 && attempt?.number === 1);
    if (plan.next && recorded.status === 'running') {
      Object.assign(run, { turn: run.turn + 1, index: plan.next.index, context: plan.next.context, current: null, stepsToStore: null, dueAt: new Date(0) });
      continue;
    }
    const retryAt = recorded.status === 'running' ? plan.retryAt : undefined;
    await afterCommit(deps, exe.id, [
      retryAt ? () => deps.queues.enqueueExecutions([{ executionId: exe.id, attempt: run.turn + 1, runAt: retryAt }]) : null,
      recorded.status !== 'running' && exe.maxConcurrentExecutions > 0 ? () => wakeWaitingSiblings(deps, exe) : null,
    ]);
    return { done: outcomeOf(recorded), executionId: exe.id };
  }
}
