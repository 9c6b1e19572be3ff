import { Prisma } from '../db/client.js';
import { callbackDelivery } from '../deliveries/callback-deliveries.js';
import { executionEvent } from '../deliveries/execution-event.js';
import { bodyPreview, type HttpClient, type HttpResult, type OutboundRequest } from '../http/http-client.js';
import type { Deps } from '../runtime/deps.js';
import { DecryptionError } from '../secrets/crypto.js';
import { maskSecretHeaders, maskSecrets } from '../secrets/mask-secrets.js';
import { signRequest } from '../signatures/sign.js';
import { loadSigningKeys } from '../signatures/signing-keys.js';
import { claimAttempt, extendLease, type ClaimedExecution } from './claim-attempt.js';
import { backoffMs, decideAttempt, type AttemptVerdict } from './decide-attempt.js';
import { renderOutput } from './output-template.js';
import { newExecutionVariables, prepareRequest } from './prepare-request.js';

export type RunOutcome =
  | { done: 'succeeded' | 'failed' | 'retry'; executionId: string }
  | { retryAt: Date }
  | { skip: string };

export interface RunAttemptDeps extends Deps {
  http: HttpClient;
  random?: () => number;
}

const ONE_SHOT_KINDS = ['one_time', 'scheduled'];

/** What an attempt produced, with secret values already masked out of everything stored. */
interface AttemptRecord {
  verdict: AttemptVerdict;
  latencyMs: number;
  statusCode: number | null;
  preview: string | null;
  headers: Record<string, string> | null;
  output: unknown;
}

async function withLease<T>(deps: RunAttemptDeps, executionId: string, work: () => Promise<T>): Promise<T> {
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

/** Renders, signs and sends the request, and judges the answer. */
/** Renders and signs the request; null with a reason when a credential cannot be had. */
async function signedRequest(deps: RunAttemptDeps, exe: ClaimedExecution): Promise<{ request: OutboundRequest; secretValues: string[] } | { error: string }> {
  try {
    const prepared = await prepareRequest(deps, { workspaceId: exe.workspaceId, executionId: exe.id, spec: exe.request, variables: exe.variables });
    if (!prepared.ok) return { error: prepared.message };
    const at = deps.clock.now();
    const keys = await loadSigningKeys(deps.db, deps.config.secretsEncryptionKey, exe.workspaceId, at);
    const request = signRequest(prepared.request, keys, exe.id, Math.floor(at.getTime() / 1000));
    return { request, secretValues: prepared.secretValues };
  } catch (error) {
    // Stored under another SECRETS_ENCRYPTION_KEY: no retry can decrypt it.
    if (error instanceof DecryptionError) return { error: `a credential of this workspace cannot be decrypted: ${error.message}` };
    throw error;
  }
}

async function attempt(deps: RunAttemptDeps, exe: ClaimedExecution, number: number): Promise<AttemptRecord> {
  const prepared = await signedRequest(deps, exe);
  if ('error' in prepared) {
    // No request was made, and retrying cannot bring the secret back.
    const verdict: AttemptVerdict = { status: 'CONNECTION_ERROR', errorClass: 'SECRET_NOT_FOUND', errorMessage: prepared.error, outcome: 'failed' };
    return { verdict, latencyMs: 0, statusCode: null, preview: null, headers: null, output: null };
  }
  const request = prepared.request;
  const result: HttpResult = await withLease(deps, exe.id, () => deps.http.send(request));
  const bodyText = result.kind === 'response' ? result.body.toString('utf8') : '';
  const verdict = decideAttempt(result, bodyText, exe.request, exe.retryPolicy, number);
  const mask = (text: string | null) => (text === null ? null : maskSecrets(text, prepared.secretValues));
  if (result.kind !== 'response') return { verdict: { ...verdict, errorMessage: mask(verdict.errorMessage) }, latencyMs: result.latencyMs, statusCode: null, preview: null, headers: null, output: null };
  const template = exe.request.response_output_template;
  // Masked before the preview is cut, so a secret straddling the 64 KiB edge cannot leak in part.
  const maskedBody = maskSecrets(bodyText, prepared.secretValues);
  return {
    verdict: { ...verdict, errorMessage: mask(verdict.errorMessage) },
    latencyMs: result.latencyMs,
    statusCode: result.statusCode,
    preview: bodyPreview(Buffer.from(maskedBody, 'utf8')),
    headers: maskSecretHeaders(result.headers, prepared.secretValues),
    output: template === undefined || verdict.outcome === 'retry' ? null : renderOutput(template, maskedBody),
  };
}

const json = (value: unknown) => (value === null || value === undefined ? Prisma.DbNull : (value as Prisma.InputJsonValue));

/**
 * Records the attempt and the execution's new state together, with the callback it owes when
 * it ends. The attempt's primary key (execution, number) and the attempt_count guard make a
 * second recording of the same attempt, by a worker that lost its lease, fail instead of counting twice.
 */
async function recordAttempt(deps: RunAttemptDeps, exe: ClaimedExecution, number: number, startedAt: Date, record: AttemptRecord) {
  const now = deps.clock.now();
  const { verdict } = record;
  const final = verdict.outcome !== 'retry';
  const nextAttemptAt = final ? null : new Date(now.getTime() + backoffMs(number, deps.random));
  const finalResponse = record.statusCode === null ? null : { statusCode: record.statusCode, bodyPreview: record.preview };
  const ops: Prisma.PrismaPromise<unknown>[] = [
    deps.db.attempt.create({
      data: {
        executionId: exe.id,
        number,
        status: verdict.status,
        statusCode: record.statusCode,
        latencyMs: record.latencyMs,
        bodyPreview: record.preview,
        responseHeaders: json(record.headers),
        errorClass: verdict.errorClass,
        errorMessage: verdict.errorMessage,
        startedAt,
      },
    }),
    deps.db.execution.updateMany({
      where: { id: exe.id, status: 'running', attemptCount: number - 1 },
      data: final
        ? {
            status: verdict.outcome,
            attemptCount: number,
            lockedUntil: null,
            finishedAt: now,
            durationMs: now.getTime() - exe.startedAt.getTime(),
            finalResponse: json(finalResponse),
            finalOutput: json(record.output),
            errorClass: verdict.errorClass,
            errorMessage: verdict.errorMessage,
            deadLetteredAt: verdict.outcome === 'failed' ? now : null,
          }
        : { attemptCount: number, lockedUntil: null, nextAttemptAt: nextAttemptAt as Date },
    }),
  ];
  const callback = final
    ? callbackDelivery({
        workspaceId: exe.workspaceId,
        executionId: exe.id,
        outcome: verdict.outcome as 'succeeded' | 'failed',
        onSuccessUrl: exe.onSuccessUrl,
        onFailureUrl: exe.onFailureUrl,
        payload: executionEvent({
          status: verdict.outcome as 'succeeded' | 'failed',
          job: { id: exe.jobId, name: exe.jobName },
          executionId: exe.id,
          statusCode: record.statusCode,
          bodyPreview: record.preview,
          errorClass: verdict.errorClass,
          output: record.output,
          at: now,
        }),
        now,
      })
    : null;
  if (callback) ops.push(deps.db.delivery.create({ data: callback }));
  if (final && exe.source === 'schedule') {
    ops.push(deps.db.job.updateMany({ where: { id: exe.jobId, kind: { in: ONE_SHOT_KINDS }, state: 'active', nextRunAt: null }, data: { state: 'completed' } }));
  }
  try {
    const [, updated] = await deps.db.$transaction(ops);
    if ((updated as { count: number }).count === 0) throw new LostClaim();
    return { recorded: true as const, nextAttemptAt, callbackId: callback?.id ?? null };
  } catch (error) {
    if (error instanceof LostClaim) return { recorded: false as const };
    if (error instanceof Prisma.PrismaClientKnownRequestError && (error.code === 'P2002' || error.code === 'P2003')) return { recorded: false as const };
    throw error;
  }
}

class LostClaim extends Error {}

/** Queued executions of a capped job that can take the slot this one just gave back. */
async function wakeWaitingSiblings(deps: RunAttemptDeps, exe: ClaimedExecution): Promise<void> {
  const waiting = await deps.db.execution.findMany({
    where: { jobId: exe.jobId, status: 'queued', nextAttemptAt: { lte: deps.clock.now() } },
    orderBy: { nextAttemptAt: 'asc' },
    take: exe.maxConcurrentExecutions,
    select: { id: true, attemptCount: true },
  });
  await deps.queues.wakeExecutions(waiting.map((w) => ({ executionId: w.id, attempt: w.attemptCount + 1 })));
}

async function afterCommit(deps: RunAttemptDeps, executionId: string, steps: ((() => Promise<unknown>) | null)[]): Promise<void> {
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
  const now = deps.clock.now();
  const claim = await claimAttempt(deps.db, executionId, now, deps.config.executionLeaseMs, newExecutionVariables(now));
  if (!('claimed' in claim)) return claim;
  const exe = claim.claimed;
  const number = exe.attemptCount + 1;
  const startedAt = deps.clock.now();
  const record = await attempt(deps, exe, number);
  const recorded = await recordAttempt(deps, exe, number, startedAt, record);
  if (!recorded.recorded) return { skip: `attempt ${number} was recorded by another worker` };
  const outcome = record.verdict.outcome;
  // The outcome is committed; queueing what follows is best effort, since the reconcilers
  // queue overdue retries and deliveries from Postgres and held-back siblings poll for a slot.
  const next = recorded.nextAttemptAt;
  await afterCommit(deps, exe.id, [
    next ? () => deps.queues.enqueueExecutions([{ executionId: exe.id, attempt: number + 1, runAt: next }]) : null,
    recorded.callbackId ? () => deps.queues.enqueueDeliveries([{ deliveryId: recorded.callbackId as string, attempt: 1, runAt: deps.clock.now() }]) : null,
    !next && exe.maxConcurrentExecutions > 0 ? () => wakeWaitingSiblings(deps, exe) : null,
    !next ? () => deps.queues.enqueueNotification({ executionId: exe.id, status: outcome }) : null,
  ]);
  deps.logger.debug('attempt recorded', { executionId: exe.id, jobId: exe.jobId, attempt: number, outcome });
  return { done: outcome, executionId: exe.id };
}
