import { bodyPreview, type HttpClient, type HttpResult, type OutboundRequest } from '../http/http-client.js';
import type { Deps } from '../runtime/deps.js';
import { DecryptionError } from '../secrets/crypto.js';
import { maskSecretHeaders, maskSecrets } from '../secrets/mask-secrets.js';
import { signRequest } from '../signatures/sign.js';
import { signingKeysFrom } from '../signatures/signing-keys.js';
import { isStepDriven } from '../workflows/step-kinds.js';
import { runStepTurn } from '../workflows/run-steps.js';
import { claimAttempt, extendLease, type ClaimedExecution } from './claim-attempt.js';
import { decideAttempt, type AttemptVerdict } from './decide-attempt.js';
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

export async function withLease<T>(deps: RunAttemptDeps, executionId: string, work: () => Promise<T>): Promise<T> {
  const leaseMs = deps.config.executionLeaseMs;
  const timer = setInterval(() => {
    extendLease(deps.db, executionId, new Date(deps.clock.now().getTime() + leaseMs)).catch((error) =>
      deps.logger.warn('lease renewal failed', { executionId, error: (error as Error).message }),
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
  const result: HttpResult = await withLease(deps, exe.id, () => deps.http.send(prepared.request));
  const bodyText = result.kind === 'response' ? result.body.toString('utf8') : '';
  const decided = decideAttempt(result, bodyText, exe.request, exe.retryPolicy, number);
  const verdict = { ...decided, errorMessage: decided.errorMessage === null ? null : maskSecrets(decided.errorMessage, prepared.secretValues) };
  if (result.kind !== 'response') return { verdict, latencyMs: result.latencyMs, statusCode: null, preview: null, headers: null, output: null };
  const template = exe.request.response_output_template;
  // Masked before the preview is cut, so a secret straddling the 64 KiB edge cannot leak in part.
  const maskedBody = maskSecrets(bodyText, prepared.secretValues);
  return {
    verdict,
    latencyMs: result.latencyMs,
    statusCode: result.statusCode,
    preview: bodyPreview(Buffer.from(maskedBody, 'utf8')),
    headers: maskSecretHeaders(result.headers, prepared.secretValues),
    output: template === undefined || verdict.outcome === 'retry' ? null : renderOutput(template, maskedBody),
  };
}

/** Queued executions of a capped job that can take the slot this one just gave back. */
export async function wakeWaitingSiblings(deps: RunAttemptDeps, exe: ClaimedExecution): Promise<void> {
  const waiting = await deps.db.execution.findMany({
    where: { jobId: exe.jobId, status: 'queued', nextAttemptAt: { lte: deps.clock.now() } },
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
  if (!recorded.recorded) return { skip: `attempt ${number} was recorded by another worker` };
  // The outcome is committed; queueing what follows is best effort, since the reconcilers
  // queue overdue retries and deliveries from Postgres and held-back siblings poll for a slot.
  const next = recorded.nextAttemptAt;
  const callbackId = recorded.callbackId;
  await afterCommit(deps, exe.id, [
    next ? () => deps.queues.enqueueExecutions([{ executionId: exe.id, attempt: number + 1, runAt: next }]) : null,
    callbackId ? () => deps.queues.enqueueDeliveries([{ deliveryId: callbackId, attempt: 1, runAt: deps.clock.now() }]) : null,
    !next && exe.maxConcurrentExecutions > 0 ? () => wakeWaitingSiblings(deps, exe) : null,
  ]);
  // winston formats an entry before it looks at the level: ~20 us an attempt when debug is off.
  if (deps.logger.isLevelEnabled('debug')) {
    deps.logger.debug('attempt recorded', { executionId: exe.id, jobId: exe.jobId, attempt: number, outcome: record.verdict.outcome });
  }
  return { done: recorded.parked ? 'parked' : record.verdict.outcome, executionId: exe.id };
}
