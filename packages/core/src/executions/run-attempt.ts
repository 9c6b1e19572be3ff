import type { HttpClient, HttpResult, OutboundRequest } from '../http/http-client.js';
import { setRequestIdInScope } from '../logging/log-context.js';
import { observeRecording } from '../metrics/observe.js';
import type { Deps } from '../runtime/deps.js';
import { DecryptionError } from '../secrets/crypto.js';
import { maskedPreview, maskSecretHeaders, secretMasker } from '../secrets/mask-secrets.js';
import { signRequest } from '../signatures/sign.js';
import { signingKeysFrom } from '../signatures/signing-keys.js';
import { isStepDriven } from '../workflows/step-kinds.js';
import { runStepTurn } from '../workflows/run-steps.js';
import { claimAttempt, extendLease, type ClaimedExecution } from './claim-attempt.js';
import { decideAttempt, type AttemptVerdict } from './decide-attempt.js';
import { jsonPathBudget } from './json-path.js';
import { renderOutput } from './output-template.js';
import { newExecutionVariables, prepareRequest } from './prepare-request.js';
import { recordAttempt, type AttemptRecord } from './record-attempt.js';

export type RunOutcome =
  | { done: 'succeeded' | 'failed' | 'retry' | 'parked' | 'waiting'; executionId: string }
  | { retryAt: Date }
  | { skip: string };

export interface RunAttemptDeps extends Deps {
  http: HttpClient;
  random?: () => number;
  /**
   * Runs the claim and the request within one of the process's attempt slots; the recording
   * that follows needs no slot, since it holds no socket and leaves in a batch anyway.
   */
  inSlot?: <T>(work: () => Promise<T>) => Promise<T>;
}

/**
 * Renews the claim's lease every lease / 3 while `work` runs. A renewal refused (the execution
 * was taken over by another worker while this one stalled) stops the renewals: this worker's
 * recording will be refused too, so the takeover stands.
 */
export async function withLease<T>(deps: RunAttemptDeps, exe: ClaimedExecution, work: () => Promise<T>): Promise<T> {
  const leaseMs = deps.config.executionLeaseMs;
  const timer = setInterval(() => {
    extendLease(deps.pool, exe.id, exe.claimToken, leaseMs).then(
      (renewed) => {
        if (renewed) return;
        clearInterval(timer);
        deps.logger.warn('lease lost: the execution was taken over or finished elsewhere; this attempt will not be recorded', { executionId: exe.id });
      },
      (error) => deps.logger.warn('lease renewal failed', { executionId: exe.id, error: (error as Error).message }),
    );
  }, Math.max(250, Math.floor(leaseMs / 3)));
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** Renders and signs the request; an error message when a credential cannot be had. */
async function signedRequest(deps: RunAttemptDeps, exe: ClaimedExecution): Promise<{ request: OutboundRequest; secretValues: string[] } | { error: string }> {
  try {
    const prepared = await prepareRequest(deps, { workspaceId: exe.workspaceId, executionId: exe.id, spec: exe.request, variables: exe.variables });
    if (!prepared.ok) return { error: prepared.message };
    const at = deps.clock.now();
    const keys = signingKeysFrom(exe.signingKeys, deps.config.secretsEncryptionKey, at);
    return { request: signRequest(prepared.request, keys, exe.id, Math.floor(at.getTime() / 1000)), secretValues: prepared.secretValues };
  } catch (error) {
    // Stored under another SECRETS_ENCRYPTION_KEY: no retry can decrypt it.
    if (error instanceof DecryptionError) return { error: `a credential of this workspace cannot be decrypted: ${error.message}` };
    throw error;
  }
}

/** Renders, signs and sends the request, and judges the answer. */
async function attempt(deps: RunAttemptDeps, exe: ClaimedExecution, number: number): Promise<AttemptRecord> {
  const prepared = await signedRequest(deps, exe);
  if ('error' in prepared) {
    // No request was made, and retrying cannot bring the secret back.
    const verdict: AttemptVerdict = { status: 'CONNECTION_ERROR', errorClass: 'SECRET_NOT_FOUND', errorMessage: prepared.error, outcome: 'failed' };
    return { verdict, latencyMs: 0, statusCode: null, preview: null, headers: null, output: null };
  }
  const result: HttpResult = await withLease(deps, exe, () => deps.http.send(prepared.request));
  const bodyText = result.kind === 'response' ? result.body.toString('utf8') : '';
  // Only what is stored or sent on is masked (preview, headers, output, error message), never
  // the whole body: checks read the body as received. One masker and one JSONPath budget serve
  // the whole attempt.
  const masker = secretMasker(prepared.secretValues);
  const checks = { masker, budget: jsonPathBudget() };
  const decided = decideAttempt(result, bodyText, exe.request, exe.retryPolicy, number, checks);
  const verdict = { ...decided, errorMessage: decided.errorMessage === null ? null : masker.mask(decided.errorMessage) };
  if (result.kind !== 'response') return { verdict, latencyMs: result.latencyMs, statusCode: null, preview: null, headers: null, output: null };
  const template = exe.request.response_output_template;
  return {
    verdict,
    latencyMs: result.latencyMs,
    statusCode: result.statusCode,
    preview: maskedPreview(bodyText, masker),
    headers: maskSecretHeaders(result.headers, masker),
    output: template === undefined || verdict.outcome === 'retry' ? null : renderOutput(template, bodyText, checks),
  };
}

/** Queued executions of a capped job that can take the slot this one just gave back. */
export async function wakeWaitingSiblings(deps: RunAttemptDeps, exe: ClaimedExecution): Promise<void> {
  const waiting = await deps.db.execution.findMany({
    where: { jobId: exe.jobId, finishedAt: null, status: 'queued', nextAttemptAt: { lte: deps.clock.now() } },
    orderBy: { nextAttemptAt: 'asc' },
    take: exe.maxConcurrentExecutions,
    select: { id: true, attemptCount: true },
  });
  await deps.queues.wakeExecutions(waiting.map((w) => ({ executionId: w.id, attempt: w.attemptCount + 1 })));
}

export async function afterCommit(deps: RunAttemptDeps, executionId: string, steps: ((() => Promise<unknown>) | null)[]): Promise<void> {
  for (const step of steps) {
    if (!step) continue;
    try {
      await step();
    } catch (error) {
      deps.logger.warn('queueing after an attempt failed; reconciliation will catch up', { executionId, error: (error as Error).message });
    }
  }
}

/** One attempt of one execution: claim, call the target, record, then queue what follows. */
export async function runAttempt(deps: RunAttemptDeps, executionId: string): Promise<RunOutcome> {
  const inSlot = deps.inSlot ?? ((work) => work());
  const made = await inSlot(async () => {
    const now = deps.clock.now();
    const claim = await claimAttempt(deps, executionId, now, deps.config.executionLeaseMs, newExecutionVariables(now));
    if (!('claimed' in claim)) return claim;
    const exe = claim.claimed;
    setRequestIdInScope(exe.requestId);
    // The runner is chosen by the job's kind (docs/adr/010-step-driven-executions.md).
    if (isStepDriven(exe.jobKind)) return { stepDriven: exe };
    const number = exe.attemptCount + 1;
    const startedAt = deps.clock.now();
    return { exe, number, startedAt, record: await attempt(deps, exe, number) };
  });
  if ('stepDriven' in made && made.stepDriven) return runStepTurn(deps, made.stepDriven);
  if (!('exe' in made)) return made;
  const { exe, number, startedAt, record } = made;
  const recorded = await recordAttempt(deps, exe, number, startedAt, record);
  if (!recorded.recorded) {
    // This worker's claim was taken over (it stalled past its lease) or the attempt was recorded already.
    deps.logger.warn('attempt not recorded: the execution was taken over by another worker', { executionId: exe.id, attempt: number });
    return { skip: `attempt ${number} was recorded by another worker` };
  }
  const { verdict } = record;
  const end = verdict.outcome === 'retry' ? null : { status: verdict.outcome, errorClass: verdict.errorClass };
  observeRecording(deps.logger, exe, { number, startedAt, status: verdict.status, latencyMs: record.latencyMs }, end, number === 1);
  // The outcome is committed; queueing what follows is best effort, since the reconciler queues
  // overdue retries from Postgres and held-back siblings poll for a slot. A finished execution's
  // callback and notifications leave through the outbox event recorded with it.
  const next = recorded.nextAttemptAt;
  await afterCommit(deps, exe.id, [
    next ? () => deps.queues.enqueueExecutions([{ executionId: exe.id, attempt: number + 1, runAt: next }]) : null,
    !next && exe.maxConcurrentExecutions > 0 ? () => wakeWaitingSiblings(deps, exe) : null,
  ]);
  // winston formats an entry before it looks at the level: ~20 us an attempt when debug is off.
  if (deps.logger.isLevelEnabled('debug')) {
    deps.logger.debug('attempt recorded', { executionId: exe.id, jobId: exe.jobId, attempt: number, outcome: record.verdict.outcome });
  }
  return { done: recorded.parked ? 'parked' : record.verdict.outcome, executionId: exe.id };
}
