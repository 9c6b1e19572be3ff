import type { Step } from '@cronsvc/contracts';
import type { ClaimedExecution } from '../executions/claim-attempt.js';
import type { Run, StepRow } from '../workflows/load-run.js';
import { planEnterWait, planHttpOutcome, planTimeout, planUnrecorded, planWaitOutcome, type HttpStepAttempt, type PlanSettings } from './step-plans.js';
import { jsonPathBudget } from '../attempts/json-path.js';

// The step runner's decisions, without a database: what each move of a run records.

const started = new Date('2030-01-01T00:00:00.000Z');
const now = new Date('2030-01-01T00:00:10.000Z');
const settings: PlanSettings = { leaseMs: 30_000, publicBaseUrl: 'https://cron.example.com' };

const http = (id: string, extra: Record<string, unknown> = {}): Step => ({ id, type: 'http', url: 'https://api.example.com/', method: 'GET', headers: {}, timeout_seconds: 30, success_statuses: [200], ...extra }) as Step;
const wait = (id: string, extra: Record<string, unknown> = {}): Step => ({ id, type: 'wait_for_webhook', on_timeout: 'fail', ...extra }) as Step;
const approval = (id: string, extra: Record<string, unknown> = {}): Step => ({ id, type: 'approval', message: 'Ship {{context.version}}?', on_timeout: 'reject', ...extra }) as Step;

function aRun(steps: Step[], overrides: Partial<Run> = {}): Run {
  const exe = {
    id: 'exe_1', workspaceId: 'wsp_1', jobId: 'job_1', jobName: 'deploy', jobKind: 'workflow', source: 'manual', attemptCount: 0, startedAt: started,
    variables: { timestamp: started.toISOString(), uuid: 'u-1' }, request: null, retryPolicy: { max_attempts: 3, retry_on_statuses: [500] },
    maxConcurrentExecutions: 1, signingKeys: { signingKey: 'k', previousSigningKey: null, signingKeyRotatedAt: null }, claimToken: 1, unrecordedClaims: 1,
  } as unknown as ClaimedExecution;
  return { exe, turn: 1, steps, stepsToStore: null, index: 0, context: {}, trigger: null, deadline: new Date(started.getTime() + 1_800_000), dueAt: new Date(0), current: null, ...overrides };
}

function anAttempt(outcome: 'succeeded' | 'retry' | 'failed', number: number, extra: Partial<HttpStepAttempt> = {}): HttpStepAttempt {
  const verdict =
    outcome === 'succeeded'
      ? ({ status: 'SUCCESS', errorClass: null, errorMessage: null, outcome } as const)
      : outcome === 'retry'
        ? ({ status: 'HTTP_ERROR', errorClass: 'HTTP_5XX', errorMessage: 'status 500 is not a success status', outcome, retryAt: new Date(now.getTime() + 1000) } as const)
        : ({ status: 'HTTP_ERROR', errorClass: 'HTTP_5XX', errorMessage: 'status 500 is not a success status', outcome } as const);
  const statusCode = outcome === 'succeeded' ? 200 : 500;
  const attempt = { number, status: verdict.status, request: null, statusCode, latencyMs: 3, bodyPreview: '{"id":7}', responseHeaders: {}, errorClass: verdict.errorClass, errorMessage: verdict.errorMessage, startedAt: now };
  return { attempt, verdict, document: { id: 7 }, response: { statusCode, bodyPreview: '{"id":7}' }, budget: jsonPathBudget(), ...extra };
}

const row = (fields: Partial<StepRow>): StepRow => ({
  id: 'stp_1', stepIndex: 0, stepId: 'w', type: 'wait_for_webhook', status: 'waiting', attemptCount: 0, input: null, output: null, extracted: null,
  errorClass: null, errorMessage: null, tokenHash: 'h', waitingPayload: {}, expiresAt: new Date('2030-01-01T00:05:00.000Z'), decision: null, decidedAt: null,
  startedAt: started, finishedAt: null, ...fields,
});

describe('an http step attempt', () => {
  it('that succeeds extracts its values and goes on with the next step in this worker, keeping the lease', () => {
    const run = aRun([http('a', { extract: { id: '$.id' } }), http('b')]);
    const plan = planHttpOutcome(settings, run, run.steps[0], anAttempt('succeeded', 1), now, now);
    expect(plan.next).toEqual({ index: 1, context: { id: 7 } });
    expect(plan.rec.state).toEqual({ status: 'running', leaseMs: 30_000, nextAttemptAt: now });
    expect(plan.rec.step).toMatchObject({ stepId: 'a', status: 'succeeded', extracted: { id: 7 }, output: { status_code: 200, body: { id: 7 } } });
  });

  it('that succeeds on the last step ends the run succeeded, its context as the output', () => {
    const run = aRun([http('a', { extract_to_context: { id: '$.id' } })]);
    const plan = planHttpOutcome(settings, run, run.steps[0], anAttempt('succeeded', 1), now, now);
    expect(plan.rec.state).toEqual({ status: 'final', final: { status: 'succeeded', errorClass: null, errorMessage: null, response: { statusCode: 200, bodyPreview: '{"id":7}' } } });
    expect(plan.rec.context).toEqual({ id: 7 });
    expect(plan.rec.storeChanges).toEqual({ id: '7' });
  });

  it("to retry waits until the verdict's retryAt (backoff, Retry-After, deadline: attempts/retry-at.ts), without a lease", () => {
    const run = aRun([http('a')]);
    const plan = planHttpOutcome(settings, run, run.steps[0], anAttempt('retry', 2), now, now);
    expect(plan.retryAt).toEqual(new Date(now.getTime() + 1000));
    expect(plan.rec.state).toEqual({ status: 'running', leaseMs: null, nextAttemptAt: plan.retryAt });
  });

  it('that fails ends the run failed with its class, naming the step', () => {
    const run = aRun([http('a'), http('b')]);
    const plan = planHttpOutcome(settings, run, run.steps[0], anAttempt('failed', 3), now, now);
    expect(plan.rec.state).toMatchObject({ status: 'final', final: { status: 'failed', errorClass: 'HTTP_5XX', errorMessage: 'step "a": status 500 is not a success status' } });
    expect(plan.rec.step).toMatchObject({ status: 'failed', errorClass: 'HTTP_5XX', finishedAt: now });
    expect(plan.next).toBeUndefined();
  });

  it('whose extraction outruns the budget fails the step CONTEXT_LIMIT_EXCEEDED', () => {
    const run = aRun([http('a', { extract: { all: '$..*' } })]);
    const plan = planHttpOutcome(settings, run, run.steps[0], anAttempt('succeeded', 1, { budget: jsonPathBudget(1) }), now, now);
    expect(plan.rec.state).toMatchObject({ final: { status: 'failed', errorClass: 'CONTEXT_LIMIT_EXCEEDED', errorMessage: expect.stringMatching(/evaluation budget/) } });
  });
});

describe('a wait', () => {
  it('entered gets a resume URL, a token stored as a hash, and an expiry bounded by the deadline', () => {
    const run = aRun([wait('w', { timeout_seconds: 7200 })], { deadline: new Date(now.getTime() + 60_000) });
    const plan = planEnterWait(settings, run, run.steps[0] as never, now);
    const state = plan.rec.state as Extract<typeof plan.rec.state, { status: 'waiting' }>;
    expect(state).toMatchObject({ status: 'waiting', reason: 'webhook', expiresAt: run.deadline });
    const url = String(state.payload.resume_url);
    expect(url).toMatch(/^https:\/\/cron\.example\.com\/v1\/resume\/rsm_[A-Za-z0-9_-]{43}$/);
    expect(plan.rec.step?.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(plan.rec.step?.tokenHash).not.toContain(url.split('/').pop());
  });

  it('for an approval renders its message from the context and announces it', () => {
    const run = aRun([approval('ok')], { context: { version: '1.2' } });
    const plan = planEnterWait(settings, run, run.steps[0] as never, now);
    expect(plan.rec.state).toMatchObject({ status: 'waiting', reason: 'approval', payload: { step_id: 'ok', step_index: 0, message: 'Ship 1.2?' } });
    expect(plan.rec.approval).toBeDefined();
  });

  it('resumed completes its step with the posted payload, extracted from', () => {
    const run = aRun([wait('w', { extract: { n: '$.n' } }), http('b')], { current: row({ decision: 'resumed', input: { n: 3 } }) });
    const plan = planWaitOutcome(settings, run, run.steps[0] as never, run.current!, now);
    expect(plan.next).toEqual({ index: 1, context: { n: 3 } });
    expect(plan.rec.step).toMatchObject({ status: 'succeeded', output: { n: 3 } });
  });

  it('timed out fails the run WAIT_TIMEOUT with on_timeout fail, and goes on with continue', () => {
    const timedOut = row({ decision: 'timed_out' });
    const failing = aRun([wait('w', { on_timeout: 'fail' })], { current: timedOut });
    expect(planWaitOutcome(settings, failing, failing.steps[0] as never, timedOut, now).rec.state).toMatchObject({ final: { status: 'failed', errorClass: 'WAIT_TIMEOUT' } });
    const going = aRun([wait('w', { on_timeout: 'continue' }), http('b')], { current: timedOut });
    expect(planWaitOutcome(settings, going, going.steps[0] as never, timedOut, now).next).toEqual({ index: 1, context: {} });
  });

  it('of an approval: rejected fails APPROVAL_REJECTED, expired fails APPROVAL_EXPIRED unless on_timeout approves', () => {
    const rejected = row({ type: 'approval', decision: 'rejected' });
    const run = aRun([approval('ok')], { current: rejected });
    expect(planWaitOutcome(settings, run, run.steps[0] as never, rejected, now).rec.state).toMatchObject({ final: { errorClass: 'APPROVAL_REJECTED' } });
    const expired = row({ type: 'approval', decision: 'expired' });
    expect(planWaitOutcome(settings, run, run.steps[0] as never, expired, now).rec.state).toMatchObject({ final: { errorClass: 'APPROVAL_EXPIRED' } });
    const approving = aRun([approval('ok', { on_timeout: 'approve' })], { current: expired });
    expect(planWaitOutcome(settings, approving, approving.steps[0] as never, expired, now).rec.state).toMatchObject({ final: { status: 'succeeded' } });
  });
});

describe('a run', () => {
  it('past its deadline fails WORKFLOW_TIMEOUT, with the step in progress', () => {
    const run = aRun([http('a')], { current: row({ type: 'http', status: 'running', stepId: 'a' }) });
    const plan = planTimeout(run, now);
    expect(plan.rec.state).toMatchObject({ final: { status: 'failed', errorClass: 'WORKFLOW_TIMEOUT', errorMessage: 'the run did not finish within max_workflow_duration_seconds (1800 s)' } });
    expect(plan.rec.step).toMatchObject({ status: 'failed', errorClass: 'WORKFLOW_TIMEOUT' });
  });

  it('whose turn cannot be stored ends RECORD_FAILED with its current step', () => {
    const run = aRun([http('a')]);
    const plan = planUnrecorded(run, { status: 'CONNECTION_ERROR', errorClass: 'RECORD_FAILED', errorMessage: 'could not be stored', outcome: 'failed' }, now);
    expect(plan.rec.state).toMatchObject({ final: { status: 'failed', errorClass: 'RECORD_FAILED', errorMessage: 'step "a": could not be stored' } });
  });
});
