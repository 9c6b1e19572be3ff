import type { HttpStep } from '@cronsvc/contracts';
import { MAX_UNRECORDED_CLAIMS, type ClaimedExecution } from '../executions/claim-attempt.js';
import { observeRecording } from '../metrics/observe.js';
import { loadRun, type Run } from '../workflows/load-run.js';
import { whileUnavailable } from '../db/while-unavailable.js';
import { ContextLimitError, recordTurn, type Recorded } from '../workflows/record-turn.js';
import { afterCommit, wakeWaitingSiblings } from './after-commit.js';
import { deferClaim } from './defer-claim.js';
import { attemptHttpStep } from './http-step.js';
import type { Runner, RunnerDeps, RunOutcome } from './runner.js';
import type { HostDeferral } from './send-attempt.js';
import { finish, planEnterWait, planHttpOutcome, planTimeout, planUnrecorded, planWaitOutcome, type Plan, type PlanSettings } from './step-plans.js';
import { isUnstorable, tooManyClaimsVerdict, unstorableVerdict } from './unrecorded.js';

/**
 * The step runner (docs/adr/010-step-driven-executions.md): one turn of a claimed step-driven
 * execution. It runs the current step and records it, goes straight on with the next step while
 * steps complete, and stops when the run waits (for a call, a decision or an http step's backoff),
 * is parked, or ends. The decisions are step-plans.ts's; this module does the sending and recording.
 */

type InSlot = <T>(work: () => Promise<T>) => Promise<T>;

const settingsOf = (deps: RunnerDeps): PlanSettings => ({ leaseMs: deps.config.executionLeaseMs, publicBaseUrl: deps.config.publicBaseUrl });

async function planHttp(deps: RunnerDeps, run: Run, step: HttpStep, inSlot: InSlot): Promise<Plan | HostDeferral> {
  const number = (run.current?.attemptCount ?? 0) + 1;
  const startedAt = run.current?.startedAt ?? deps.clock.now();
  const made = await inSlot(() => attemptHttpStep(deps, run, step, number));
  if ('hostDeferred' in made) return made;
  return planHttpOutcome(settingsOf(deps), run, step, made, startedAt, deps.clock.now());
}

/** The run's next move; an http step's request is sent within `inSlot`, or deferred by the host gate. */
async function planMove(deps: RunnerDeps, run: Run, inSlot: InSlot): Promise<Plan | HostDeferral> {
  const now = deps.clock.now();
  if (run.exe.unrecordedClaims > MAX_UNRECORDED_CLAIMS) return planUnrecorded(run, tooManyClaimsVerdict(run.exe.unrecordedClaims), now);
  if (Math.max(now.getTime(), run.dueAt.getTime()) >= run.deadline.getTime()) return planTimeout(run, now);
  const step = run.steps[run.index];
  if (!step) return finish(run, { status: 'succeeded', errorClass: null, errorMessage: null });
  if (step.type === 'http') return planHttp(deps, run, step, inSlot);
  const row = run.current;
  if (row && row.status === 'waiting' && row.decision) return planWaitOutcome(settingsOf(deps), run, step, row, now);
  return planEnterWait(settingsOf(deps), run, step, now);
}

/**
 * Records a move. Values the context store refuses fail the step instead; a move PostgreSQL
 * refuses to store (runners/unrecorded.ts) ends the run failed without it, at once.
 */
async function record(deps: RunnerDeps, run: Run, plan: Plan): Promise<{ plan: Plan; recorded: Recorded }> {
  try {
    // As a request job's attempt (request-runner.ts): a database restarting is waited for, up to a lease.
    const recorded = await whileUnavailable(() => recordTurn(deps, run, plan.rec), { forMs: deps.config.executionLeaseMs });
    return { plan, recorded };
  } catch (error) {
    if (error instanceof ContextLimitError && plan.onContextLimit) {
      const failed = plan.onContextLimit(`the job's context store refused the values: ${error.message}`);
      return { plan: failed, recorded: await recordTurn(deps, run, failed.rec) };
    }
    if (!isUnstorable(error)) throw error;
    deps.logger.warn('workflow turn could not be stored; the execution ends failed', { executionId: run.exe.id, error: (error as Error).message });
    const failed = planUnrecorded(run, unstorableVerdict(error), deps.clock.now());
    return { plan: failed, recorded: await recordTurn(deps, run, failed.rec) };
  }
}

function outcomeOf(recorded: Extract<Recorded, { recorded: true }>): 'succeeded' | 'failed' | 'retry' | 'parked' | 'waiting' {
  if (recorded.status === 'succeeded' || recorded.status === 'failed') return recorded.status;
  if (recorded.status === 'waiting') return recorded.waitingReason === 'manual' ? 'parked' : 'waiting';
  return 'retry';
}

/** Records `first` and the moves after it, until the run waits, retries later, is parked or ends. */
async function carryOn(deps: RunnerDeps, exe: ClaimedExecution, run: Run, first: Plan): Promise<RunOutcome> {
  const inSlot: InSlot = (work) => (deps.inSlot ? deps.inSlot(exe.workspaceId, work) : work());
  let move = first;
  for (;;) {
    const { plan, recorded } = await record(deps, run, move);
    if (!recorded.recorded) return { skip: `turn ${run.turn} was recorded by another worker` };
    const { attempt, state } = plan.rec;
    observeRecording(deps.logger, exe, attempt ?? null, state.status === 'final' ? state.final : null, run.turn === 1 && attempt?.number === 1);
    if (plan.next && recorded.status === 'running') {
      Object.assign(run, { turn: run.turn + 1, index: plan.next.index, context: plan.next.context, current: null, stepsToStore: null, dueAt: new Date(0) });
      // Each later request of the turn takes a slot of its own, as a queue job would.
      const next = await planMove(deps, run, inSlot);
      // The host gate deferred it: the turn ends here, its claim given back until then.
      if ('hostDeferred' in next) return deferClaim(deps, exe, next.hostDeferred);
      move = next;
      continue;
    }
    const retryAt = recorded.status === 'running' ? plan.retryAt : undefined;
    await afterCommit(deps, exe.id, [
      retryAt ? () => deps.queues.enqueueExecutions([{ executionId: exe.id, attempt: run.turn + 1, runAt: retryAt, workspaceId: exe.workspaceId }]) : null,
      recorded.status !== 'running' && exe.maxConcurrentExecutions > 0 ? () => wakeWaitingSiblings(deps, exe) : null,
    ]);
    return { done: outcomeOf(recorded), executionId: exe.id };
  }
}

/** Step-driven jobs (workflow, webhook_trigger): the run's first move in the claim's slot, the rest after. */
export const stepRunner: Runner = {
  async run(deps, exe) {
    const run = await loadRun(deps, exe);
    if (!run) return { record: async () => ({ skip: 'another worker recorded a turn of this execution since it was claimed' }) };
    const first = await planMove(deps, run, (work) => work());
    if ('hostDeferred' in first) return first;
    return { record: () => carryOn(deps, exe, run, first) };
  },
};
