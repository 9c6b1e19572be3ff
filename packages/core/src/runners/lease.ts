import type { ClaimedExecution } from '../executions/claim-attempt.js';
import { extendLease } from '../executions/claim-attempt.js';
import type { RunnerDeps } from './runner.js';

/**
 * Renews the claim's lease every lease / 3 while `work` runs. A renewal refused (the execution
 * was taken over by another worker while this one stalled) stops the renewals: this worker's
 * recording will be refused too, so the takeover stands.
 */
export async function withLease<T>(deps: RunnerDeps, exe: ClaimedExecution, work: () => Promise<T>): Promise<T> {
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
