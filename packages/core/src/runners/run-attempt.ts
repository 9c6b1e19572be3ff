import type { JobKind } from '@cronsvc/contracts';
import { claimAttempt, type ClaimResult } from '../executions/claim-attempt.js';
import { newExecutionVariables } from '../executions/execution-variables.js';
import { executedFireOutcome } from '../fires/fire-outcome.js';
import { observeFires } from '../metrics/observe.js';
import { setRequestIdInScope } from '../logging/log-context.js';
import type { OpenSpan, SpanAttributes } from '../tracing/tracing.js';
import { deferClaim } from './defer-claim.js';
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
 * The executor's turn of one execution: claim it, pick the runner of its job's kind, run (render ->
 * gate -> send -> decide), record (docs/adr/026-a-gate-in-the-attempt-pipeline.md). A request the
 * host gate defers gives the claim back instead of recording, due again when the gate said.
 * The claim and the runner's first move (a request) share one attempt slot, so a claimed execution
 * never waits for a slot while its lease runs; the slot is asked for in the name of `workspaceId`
 * (the queue payload's), so that waiting workspaces are served in turn. A claim its workspace's
 * fair share refuses answers the deferral, with nothing claimed. With the executor's claims in hand, a turn whose
 * request is still out when the executor hands its work back ends at once, unrecorded, its claim
 * released (ClaimsInHand); its answer, should it come, is dropped.
 * With spans exported, the claim is an `execution.claim` span, the child of the enqueue's
 * (`queued.traceparent`, from the queue payload), and the turn runs within it, so that its
 * attempts are its children (docs/adr/030-spans-exported-over-otlp.md).
 */
export async function runAttempt(deps: RunnerDeps, executionId: string, queued: { workspaceId?: string; traceparent?: string } = {}): Promise<RunOutcome> {
  const inSlot = deps.inSlot ?? ((_workspaceId, work) => work());
  const { claims } = deps;
  // Set by the claim, inside the slot; read again for the record.
  const traced: { span?: OpenSpan } = {};
  const ran = await inSlot(queued.workspaceId, async (): Promise<RunOutcome | { turn: { record(): Promise<RunOutcome> } }> => {
    if (claims?.handingBack) return { handedBack: executionId };
    const now = deps.clock.now();
    const span = deps.tracing?.start({ name: 'execution.claim', kind: 'consumer', traceKey: executionId, parent: queued.traceparent, attributes: { 'cronsvc.execution_id': executionId } });
    traced.span = span;
    const claim = await claimAttempt(deps, executionId, now, deps.config.executionLeaseMs, newExecutionVariables(now)).catch((error: Error) => {
      span?.end({ error: error.message });
      throw error;
    });
    span?.end({ attributes: claimAttributes(claim) });
    if (!('claimed' in claim)) return claim;
    const exe = claim.claimed;
    if (exe.workspaceRoom !== null) deps.onRoom?.(exe.workspaceId, exe.workspaceRoom);
    if (claims && !claims.hold(exe)) return { handedBack: executionId };
    // The claim that starts an execution stamps started_at with its own time: that is the fire.
    if (exe.fire && exe.startedAt.getTime() === now.getTime()) {
      observeFires(executedFireOutcome({ ...exe.fire, firedAt: exe.startedAt }, deps.config.fireLateAfterMs) as 'fired' | 'late' | 'caught_up');
    }
    setRequestIdInScope(exe.requestId);
    const runner = RUNNERS[exe.jobKind as JobKind];
    const run = async () => {
      const turn = await (span ? span.within(() => runner.run(deps, exe)) : runner.run(deps, exe));
      return 'hostDeferred' in turn ? { record: () => deferClaim(deps, exe, turn.hostDeferred) } : turn;
    };
    if (!claims) return { turn: await run() };
    try {
      const turn = await Promise.race([run(), claims.handedBack.then(() => null)]);
      return turn === null ? { handedBack: executionId } : { turn };
    } finally {
      claims.drop(exe);
    }
  });
  if (!('turn' in ran)) return ran;
  const { turn } = ran;
  // What the record queues (a retry) is a child of the claim too.
  return traced.span ? traced.span.within(() => turn.record()) : turn.record();
}

/** What the claim span says of its claim: claimed (with its job), or why not. */
function claimAttributes(claim: ClaimResult): SpanAttributes {
  if ('claimed' in claim) return { 'cronsvc.claim.outcome': 'claimed', 'cronsvc.job_id': claim.claimed.jobId, 'cronsvc.workspace_id': claim.claimed.workspaceId };
  if ('deferred' in claim) return { 'cronsvc.claim.outcome': 'deferred', 'cronsvc.workspace_id': claim.workspaceId };
  return { 'cronsvc.claim.outcome': 'retryAt' in claim ? 'not_due' : 'skipped' };
}
