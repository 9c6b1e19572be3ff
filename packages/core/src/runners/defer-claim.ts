import { releaseClaims, type ClaimedExecution } from '../executions/claim-attempt.js';
import type { RunnerDeps, RunOutcome } from './runner.js';

/**
 * The host gate deferred the claim's request (docs/adr/026-a-gate-in-the-attempt-pipeline.md): the
 * claim is given back with its next attempt due at `until`, no attempt is recorded and nothing is
 * spent. The turn answers when to run again; a claim taken over meanwhile is the new holder's.
 */
export async function deferClaim(deps: RunnerDeps, exe: ClaimedExecution, until: Date): Promise<RunOutcome> {
  const deferMs = Math.max(0, until.getTime() - deps.clock.now().getTime());
  const released = await releaseClaims(deps.pool, [{ executionId: exe.id, claimToken: exe.claimToken, deferMs }]);
  if (released.length === 0) return { skip: `the claim of ${exe.id} was taken over while its host held it back` };
  return { retryAt: until };
}
