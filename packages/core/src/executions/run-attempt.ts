import { Prisma } from '../db/client.js';
import { bodyPreview, type HttpClient, type HttpResult } from '../http/http-client.js';
import type { Deps } from '../runtime/deps.js';
import { buildRequest } from './build-request.js';
import { claimAttempt, extendLease, type ClaimedExecution } from './claim-attempt.js';
import { backoffMs, decideAttempt, type AttemptVerdict } from './decide-attempt.js';

export type RunOutcome =
  | { done: 'succeeded' | 'failed' | 'retry'; executionId: string }
  | { retryAt: Date }
  | { skip: string };

export interface RunAttemptDeps extends Deps {
  http: HttpClient;
  random?: () => number;
}

const ONE_SHOT_KINDS = ['one_time', 'scheduled'];

function finalResponse(result: HttpResult): Prisma.InputJsonValue | typeof Prisma.DbNull {
  if (result.kind !== 'response') return Prisma.DbNull;
  return { statusCode: result.statusCode, bodyPreview: bodyPreview(result.body) };
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

/**
 * Records the attempt and the execution's new state together. The attempt's primary key
 * (execution, number) and the attempt_count guard make a second recording of the same
 * attempt, by a worker that lost its lease, fail instead of counting twice.
 */
async function recordAttempt(
  deps: RunAttemptDeps,
  exe: ClaimedExecution,
  number: number,
  attemptStartedAt: Date,
  result: HttpResult,
  verdict: AttemptVerdict,
): Promise<{ recorded: boolean; nextAttemptAt: Date | null }> {
  const now = deps.clock.now();
  const final = verdict.outcome !== 'retry';
  const nextAttemptAt = final ? null : new Date(now.getTime() + backoffMs(number, deps.random));
  const attempt = deps.db.attempt.create({
    data: {
      executionId: exe.id,
      number,
      status: verdict.status,
      statusCode: result.kind === 'response' ? result.statusCode : null,
      latencyMs: result.latencyMs,
      bodyPreview: result.kind === 'response' ? bodyPreview(result.body) : null,
      responseHeaders: result.kind === 'response' ? result.headers : Prisma.DbNull,
      errorClass: verdict.errorClass,
      errorMessage: verdict.errorMessage,
      startedAt: attemptStartedAt,
    },
  });
  const execution = deps.db.execution.updateMany({
    where: { id: exe.id, status: 'running', attemptCount: number - 1 },
    data: final
      ? {
          status: verdict.outcome,
          attemptCount: number,
          lockedUntil: null,
          finishedAt: now,
          durationMs: now.getTime() - exe.startedAt.getTime(),
          finalResponse: finalResponse(result),
          errorClass: verdict.errorClass,
          errorMessage: verdict.errorMessage,
          deadLetteredAt: verdict.outcome === 'failed' ? now : null,
        }
      : { attemptCount: number, lockedUntil: null, nextAttemptAt: nextAttemptAt as Date },
  });
  const completeJob = deps.db.job.updateMany({
    where: { id: exe.jobId, kind: { in: ONE_SHOT_KINDS }, state: 'active', nextRunAt: null },
    data: { state: 'completed' },
  });
  try {
    const ops = final && exe.source === 'schedule' ? [attempt, execution, completeJob] : [attempt, execution];
    const [, updated] = await deps.db.$transaction(ops);
    if ((updated as { count: number }).count === 0) throw new LostClaim();
    return { recorded: true, nextAttemptAt };
  } catch (error) {
    if (error instanceof LostClaim) return { recorded: false, nextAttemptAt: null };
    if (error instanceof Prisma.PrismaClientKnownRequestError && (error.code === 'P2002' || error.code === 'P2003')) {
      return { recorded: false, nextAttemptAt: null };
    }
    throw error;
  }
}

class LostClaim extends Error {}

/** One attempt of one execution: claim, call the target, record, then queue what follows. */
export async function runAttempt(deps: RunAttemptDeps, executionId: string): Promise<RunOutcome> {
  const claim = await claimAttempt(deps.db, executionId, deps.clock.now(), deps.config.executionLeaseMs);
  if (!('claimed' in claim)) return claim;
  const exe = claim.claimed;
  const number = exe.attemptCount + 1;
  const attemptStartedAt = deps.clock.now();
  const result = await withLease(deps, exe.id, () => deps.http.send(buildRequest(exe.request, exe.id)));
  const verdict = decideAttempt(result, exe.request, exe.retryPolicy, number);
  const { recorded, nextAttemptAt } = await recordAttempt(deps, exe, number, attemptStartedAt, result, verdict);
  if (!recorded) return { skip: `attempt ${number} was recorded by another worker` };
  if (nextAttemptAt) {
    await deps.queues.enqueueExecutions([{ executionId: exe.id, attempt: number + 1, runAt: nextAttemptAt }]);
  } else {
    await deps.queues.enqueueNotification({ executionId: exe.id, status: verdict.outcome });
  }
  deps.logger.debug('attempt recorded', { executionId: exe.id, jobId: exe.jobId, attempt: number, outcome: verdict.outcome });
  return { done: verdict.outcome, executionId: exe.id };
}
