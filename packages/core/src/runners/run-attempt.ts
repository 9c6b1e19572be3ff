import type { JobKind } from '@cronsvc/contracts';
import { claimAttempt } from '../executions/claim-attempt.js';
import { newExecutionVariables } from '../executions/execution-variables.js';
import { setRequestIdInScope } from '../logging/log-context.js';
import { requestRunner } from './request-runner.js';
import type { Runner, RunnerDeps, RunOutcome } from './runner.js';
import { stepRunner } from './step-runner.js';

/** The runner of each job kind: a new kind does not compile until it has one. */
const RUNNERS: Record<JobKind, Runner> = {
  recurring: requestRunner,
  cron: requestRunner,
  scheduled: requestRunner,
  one_time: requestRunner,
  workflow: stepRunner,
  webhook_trigger: stepRunner,
};

/**
 * The executor's turn of one execution: claim it, pick the runner of its job's kind, run, record.
 * The claim and the runner's first move (a request) share one attempt slot, so a claimed execution
 * never waits for a slot while its lease runs.
 */
export async function runAttempt(deps: RunnerDeps, executionId: string): Promise<RunOutcome> {
  const inSlot = deps.inSlot ?? ((work) => work());
  const ran = await inSlot(async () => {
    const now = deps.clock.now();
    const claim = await claimAttempt(deps, executionId, now, deps.config.executionLeaseMs, newExecutionVariables(now));
    if (!('claimed' in claim)) return claim;
    setRequestIdInScope(claim.claimed.requestId);
    const runner = RUNNERS[claim.claimed.jobKind as JobKind];
    return { turn: await runner.run(deps, claim.claimed) };
  });
  return 'turn' in ran ? ran.turn.record() : ran;
}
