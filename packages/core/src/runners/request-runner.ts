import type { AttemptVerdict } from '../attempts/decide-attempt.js';
import { renderOutput } from '../attempts/output-template.js';
import { MAX_UNRECORDED_CLAIMS, type ClaimedExecution } from '../executions/claim-attempt.js';
import { whileUnavailable } from '../db/while-unavailable.js';
import { recordAttempt, type AttemptRecord, type Recorded } from '../executions/record-attempt.js';
import { observeRecording } from '../metrics/observe.js';
import { DecryptionError } from '../secrets/crypto.js';
import { afterCommit, wakeWaitingSiblings } from './after-commit.js';
import { prepareRequest } from './prepare-request.js';
import type { Runner, RunnerDeps, RunOutcome } from './runner.js';
import { sendAttempt, type HostDeferral, type RenderedRequest } from './send-attempt.js';
import { isUnstorable, tooManyClaimsVerdict, unstorableVerdict } from './unrecorded.js';

/** The job's request rendered for this execution (variables, secrets read now); why not when a secret is gone. */
async function renderJobRequest(deps: RunnerDeps, exe: ClaimedExecution): Promise<RenderedRequest> {
  try {
    const prepared = await prepareRequest(deps, { workspaceId: exe.workspaceId, executionId: exe.id, spec: exe.request, variables: exe.variables });
    return prepared.ok ? prepared : { error: prepared.message, errorClass: prepared.errorClass };
  } catch (error) {
    // Stored under another SECRETS_ENCRYPTION_KEY: no retry can decrypt it.
    if (error instanceof DecryptionError) return { error: `a credential of this workspace cannot be decrypted: ${error.message}`, errorClass: 'SECRET_NOT_FOUND' };
    throw error;
  }
}

function withoutResponse(verdict: AttemptVerdict, latencyMs = 0, budgetWaitMs = 0): AttemptRecord {
  return { verdict, request: null, latencyMs, timings: null, statusCode: null, preview: null, headers: null, output: null, budgetWaitMs };
}

/** One attempt of a request job: render, gate, send and judge (sendAttempt), then its output template. */
async function attemptRequest(deps: RunnerDeps, exe: ClaimedExecution, number: number): Promise<AttemptRecord | HostDeferral> {
  const sent = await sendAttempt(deps, exe, await renderJobRequest(deps, exe), exe.request, number);
  if ('hostDeferred' in sent) return sent;
  const template = exe.request.response_output_template;
  const outputOwed = template !== undefined && sent.bodyText !== null && sent.verdict.outcome !== 'retry';
  return {
    verdict: sent.verdict,
    request: sent.request,
    latencyMs: sent.latencyMs,
    timings: sent.timings,
    statusCode: sent.statusCode,
    preview: sent.preview,
    headers: sent.headers,
    output: outputOwed ? renderOutput(template, sent.bodyText!, { masker: sent.masker, budget: sent.budget }) : null,
    budgetWaitMs: sent.budgetWaitMs,
  };
}

/**
 * Records the attempt; one whose outcome PostgreSQL refuses is recorded as failed without it, at
 * once. While Postgres cannot be reached (a restart), the recording is tried again for up to a
 * lease: given up, the claim lapses and the request is sent again. Answers what was stored.
 */
async function recordOrFail(deps: RunnerDeps, exe: ClaimedExecution, number: number, startedAt: Date, record: AttemptRecord): Promise<{ recorded: Recorded; stored: AttemptRecord }> {
  try {
    const recorded = await whileUnavailable(() => recordAttempt(deps, exe, number, startedAt, record), {
      forMs: deps.config.executionLeaseMs,
      onRetry: (error) => deps.logger.warn('attempt not recorded yet: the database is unavailable; trying again', { executionId: exe.id, attempt: number, error: error.message }),
    });
    return { recorded, stored: record };
  } catch (error) {
    if (!isUnstorable(error)) throw error;
    deps.logger.warn('attempt outcome could not be stored; the execution ends failed', { executionId: exe.id, attempt: number, error: (error as Error).message });
    const stored = withoutResponse(unstorableVerdict(error), record.latencyMs, record.budgetWaitMs);
    return { recorded: await recordAttempt(deps, exe, number, startedAt, stored), stored };
  }
}

/** Records the attempt, then queues what follows: the next attempt, or wake-ups of held-back siblings. */
async function recordRequestAttempt(deps: RunnerDeps, exe: ClaimedExecution, number: number, startedAt: Date, record: AttemptRecord): Promise<RunOutcome> {
  const { recorded, stored } = await recordOrFail(deps, exe, number, startedAt, record);
  if (!recorded.recorded) {
    // This worker's claim was taken over (it stalled past its lease) or the attempt was recorded already.
    deps.logger.warn('attempt not recorded: the execution was taken over by another worker', { executionId: exe.id, attempt: number });
    return { skip: `attempt ${number} was recorded by another worker` };
  }
  const { verdict } = stored;
  const end = verdict.outcome === 'retry' ? null : { status: verdict.outcome, errorClass: verdict.errorClass };
  observeRecording(deps.logger, exe, { number, startedAt, status: verdict.status, latencyMs: stored.latencyMs }, end, number === 1);
  // A finished execution's callback and notifications leave through the outbox event recorded with it.
  const next = recorded.nextAttemptAt;
  await afterCommit(deps, exe.id, [
    next ? () => deps.queues.enqueueExecutions([{ executionId: exe.id, attempt: number + 1, runAt: next, workspaceId: exe.workspaceId }]) : null,
    !next && exe.maxConcurrentExecutions > 0 ? () => wakeWaitingSiblings(deps, exe) : null,
  ]);
  // winston formats an entry before it looks at the level: ~20 us an attempt when debug is off.
  if (deps.logger.isLevelEnabled('debug')) {
    deps.logger.debug('attempt recorded', { executionId: exe.id, jobId: exe.jobId, attempt: number, outcome: verdict.outcome });
  }
  return { done: recorded.parked ? 'parked' : verdict.outcome, executionId: exe.id };
}

/** Request jobs (recurring, cron, scheduled, one_time): one attempt per turn. */
export const requestRunner: Runner = {
  async run(deps, exe) {
    const number = exe.attemptCount + 1;
    const startedAt = deps.clock.now();
    const record =
      exe.unrecordedClaims > MAX_UNRECORDED_CLAIMS ? withoutResponse(tooManyClaimsVerdict(exe.unrecordedClaims)) : await attemptRequest(deps, exe, number);
    if ('hostDeferred' in record) return record;
    return { record: () => recordRequestAttempt(deps, exe, number, startedAt, record) };
  },
};
