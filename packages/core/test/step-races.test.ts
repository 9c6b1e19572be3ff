import { createHttpClient } from '../src/http/http-client.js';
import { claimAttempt } from '../src/executions/claim-attempt.js';
import { newExecutionVariables } from '../src/executions/execution-variables.js';
import { runAttempt } from '../src/runners/run-attempt.js';
import type { RunnerDeps, RunOutcome } from '../src/runners/runner.js';
import { runNow } from '../src/executions/run-now.js';
import { decideApproval } from '../src/workflows/decide-approval.js';
import { expireWaits } from '../src/workflows/expire-waits.js';
import { resumeByToken } from '../src/workflows/resume-wait.js';
import { stepRunner } from '../src/runners/step-runner.js';
import { aJob, approvalStep, aWorkflow, useWorkspace, waitStep } from './factories.js';
import type { TestContext } from './test-context.js';

// Writers of a step-driven run racing each other (docs/adr/010-step-driven-executions.md): every
// race has exactly one winner, and the run's records agree with it.
let ctx: TestContext;
let deps: RunnerDeps;
let workspaceId: string;

const w = useWorkspace();
beforeAll(() => {
  ({ ctx, workspaceId } = w);
  deps = { ...ctx.runtime, http: createHttpClient({ allowPrivateTargets: true }) };
});

/** A run of `steps` that its first turn (run here, without the queue) has put in waiting; with the token of its URL. */
async function waitingRun(step: Record<string, unknown>): Promise<{ id: string; token: string }> {
  const job = await aJob(ctx.runtime, workspaceId, aWorkflow([step]));
  const { id } = await runNow(ctx.runtime, workspaceId, job.id);
  expect(await runAttempt(deps, id)).toEqual({ done: 'waiting', executionId: id });
  const { waitingPayload } = await ctx.runtime.db.execution.findUniqueOrThrow({ where: { id } });
  const url = (waitingPayload as Record<string, string>).resume_url ?? (waitingPayload as Record<string, string>).review_url;
  return { id, token: url.split('/').pop() as string };
}

const currentStep = (id: string) => ctx.runtime.db.stepExecution.findFirstOrThrow({ where: { executionId: id } });

it('lets exactly one of several resumes and an expired timer settle a wait', async () => {
  for (let round = 0; round < 5; round++) {
    const { id, token } = await waitingRun(waitStep('w'));
    await ctx.runtime.db.execution.update({ where: { id }, data: { waitingExpiresAt: new Date(Date.now() - 1) } });
    const [expired, ...resumes] = await Promise.allSettled([expireWaits(ctx.runtime), ...[1, 2, 3].map((n) => resumeByToken(ctx.runtime, token, { n }))]);
    const resumed = resumes.filter((r) => r.status === 'fulfilled').length;
    const timedOut = expired.status === 'fulfilled' ? expired.value : 0;
    expect(resumed + timedOut).toBe(1);
    expect(resumes.filter((r) => r.status === 'rejected').every((r) => (r as PromiseRejectedResult).reason.code === 'not_found')).toBe(true);
    expect((await currentStep(id)).decision).toBe(resumed === 1 ? 'resumed' : 'timed_out');
    expect((await ctx.runtime.db.execution.findUniqueOrThrow({ where: { id } })).status).toBe('queued');
  }
});

it('takes the first of two concurrent decisions and answers the other already_decided', async () => {
  const { id, token } = await waitingRun(approvalStep('a', 'ok?'));
  const outcomes = await Promise.allSettled([decideApproval(ctx.runtime, token, 'approved', null), decideApproval(ctx.runtime, token, 'rejected', null)]);
  const won = outcomes.filter((o) => o.status === 'fulfilled') as PromiseFulfilledResult<{ status: string }>[];
  expect(won).toHaveLength(1);
  expect((outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason.code).toBe('already_decided');
  expect((await currentStep(id)).decision).toBe(won[0].value.status);
});

it('records a turn once when two workers run it for the same claim', async () => {
  const job = await aJob(ctx.runtime, workspaceId, aWorkflow([waitStep('w')]));
  const { id } = await runNow(ctx.runtime, workspaceId, job.id);
  const now = new Date();
  const claim = await claimAttempt(ctx.runtime, id, now, 30_000, newExecutionVariables(now));
  if (!('claimed' in claim)) throw new Error('not claimed');
  const turn = async (): Promise<RunOutcome> => {
    const started = await stepRunner.run(deps, claim.claimed);
    if ('hostDeferred' in started) throw new Error('deferred by the host gate');
    return started.record();
  };
  const outcomes = await Promise.all([turn(), turn()]);
  expect(outcomes.filter((o) => 'done' in o)).toEqual([{ done: 'waiting', executionId: id }]);
  expect(outcomes.filter((o) => 'skip' in o)).toHaveLength(1);
  expect(await ctx.runtime.db.stepExecution.count({ where: { executionId: id } })).toBe(1);
  // The URL the execution shows is the one whose token was stored.
  const { waitingPayload, attemptCount } = await ctx.runtime.db.execution.findUniqueOrThrow({ where: { id } });
  expect(attemptCount).toBe(1);
  const token = (waitingPayload as { resume_url: string }).resume_url.split('/').pop() as string;
  await expect(resumeByToken(ctx.runtime, token, null)).resolves.toEqual({ resumed: true, execution_id: id });
});
