import { runNow } from '@cronsvc/core';
import { aHostLimit, aJob, aOneTimeExecution, aTriggerJob, aWorkflow, finishedExecution, httpStep, waitFor, type TargetServer, type TestContext } from '@cronsvc/core/testing';
import { useExecutorFixture } from './executor-fixture.js';

// Budgets per target host and Retry-After (docs/JOBS.md, "Host budgets and Retry-After"), against a
// real target that counts the requests it has open and answers 429 or 503 when told to. Each test
// has a workspace of its own, so a cool-down of one never holds back another.

const fixture = useExecutorFixture({ perTest: true });
let ctx: TestContext;
let target: TargetServer;
let workspaceId: string;
beforeEach(() => ({ ctx, target, workspaceId } = fixture));

const HOST = '127.0.0.1';

/** Answers every request after `holdMs`, counting the requests open at once. */
function countOpen(holdMs: number) {
  let open = 0;
  let most = 0;
  target.handle(async (_req, res) => {
    open += 1;
    most = Math.max(most, open);
    await new Promise((resolve) => setTimeout(resolve, holdMs));
    open -= 1;
    res.end('ok');
  });
  return { most: () => most };
}

async function allSucceeded(jobId: string, count: number) {
  let done = 0;
  await waitFor(async () => (done = await ctx.runtime.db.execution.count({ where: { jobId, status: 'succeeded' } })) === count, {
    what: () => `${count} executions to succeed (${done} did)`,
    timeoutMs: 60_000,
  });
}

it('keeps the requests to a host within its max_concurrency, and the waits spend no attempt', async () => {
  await aHostLimit(ctx.runtime, workspaceId, HOST, { max_concurrency: 2 });
  const counter = countOpen(150);
  const job = await aJob(ctx.runtime, workspaceId, { request: { url: `${target.url}/limited` } });
  await Promise.all(Array.from({ length: 12 }, () => runNow(ctx.runtime, workspaceId, job.id)));
  await allSucceeded(job.id, 12);
  expect(counter.most()).toBe(2);
  const attempts = await ctx.runtime.db.attempt.findMany({ where: { execution: { jobId: job.id } } });
  // Held back by the budget, no execution made a second attempt.
  expect(attempts).toHaveLength(12);
  expect(attempts.every((a) => a.number === 1 && a.status === 'SUCCESS')).toBe(true);
  expect(attempts.some((a) => a.budgetWaitMs > 0)).toBe(true);
}, 90_000);

it('honours a 429 Retry-After in seconds: the next attempt and every other request to the host wait for it', async () => {
  let calls = 0;
  target.handle((req, res) => {
    calls += 1;
    if (req.url === '/busy' && calls === 1) {
      res.statusCode = 429;
      res.setHeader('Retry-After', '2');
    }
    res.end('ok');
  });
  const first = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: `${target.url}/busy` } });
  const busy = await waitFor(() => target.received.find((r) => r.url === '/busy'), { what: 'the first call' });
  const cooldown = await waitFor(async () => (await ctx.runtime.db.hostLimit.findFirst({ where: { workspaceId, host: HOST } }))?.cooldownUntil ?? undefined, { what: 'the cool-down to be recorded' });
  expect(cooldown.getTime()).toBeGreaterThanOrEqual(busy.at + 1_500);
  // Another job of the workspace to the same host, created during the cool-down, waits for its end.
  const other = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: `${target.url}/other` } });

  const done = await finishedExecution(ctx.runtime, workspaceId, first.executionId, { timeoutMs: 20_000 });
  expect(done.status).toBe('succeeded');
  expect(done.attempts.map((a) => a.statusCode)).toEqual([429, 200]);
  const calledAgain = target.received.filter((r) => r.url === '/busy')[1];
  expect(calledAgain.at - busy.at).toBeGreaterThanOrEqual(1_900);

  const waited = await finishedExecution(ctx.runtime, workspaceId, other.executionId, { timeoutMs: 20_000 });
  expect(waited.status).toBe('succeeded');
  expect(waited.attempts).toHaveLength(1);
  expect(target.received.find((r) => r.url === '/other')!.at).toBeGreaterThanOrEqual(cooldown.getTime() - 50);
  expect(waited.attempts[0].budgetWaitMs).toBeGreaterThan(0);
}, 60_000);

it('honours a 503 Retry-After given as an HTTP date on a workflow http step', async () => {
  let retryAt = 0;
  target.handle((_req, res) => {
    if (retryAt === 0) {
      // HTTP dates have whole seconds: at least two seconds from now.
      retryAt = (Math.floor(Date.now() / 1000) + 3) * 1000;
      res.statusCode = 503;
      res.setHeader('Retry-After', new Date(retryAt).toUTCString());
    }
    res.end('{"ok":true}');
  });
  const job = await aJob(ctx.runtime, workspaceId, aWorkflow([httpStep('call', `${target.url}/step`)]));
  const { id } = await runNow(ctx.runtime, workspaceId, job.id);
  const done = await finishedExecution(ctx.runtime, workspaceId, id, { timeoutMs: 20_000 });
  expect(done.status).toBe('succeeded');
  const calls = target.received.filter((r) => r.url === '/step');
  expect(calls).toHaveLength(2);
  expect(calls[1].at).toBeGreaterThanOrEqual(retryAt - 50);
  const attempts = await ctx.runtime.db.stepAttempt.findMany({ where: { executionId: id }, orderBy: { number: 'asc' } });
  expect(attempts.map((a) => a.statusCode)).toEqual([503, 200]);
}, 60_000);

it('holds a trigger-started step to the host budget of its workspace', async () => {
  await aHostLimit(ctx.runtime, workspaceId, HOST, { max_concurrency: 1 });
  const counter = countOpen(100);
  const job = await aJob(ctx.runtime, workspaceId, aTriggerJob([httpStep('a', `${target.url}/a`), httpStep('b', `${target.url}/b`)]));
  await Promise.all(Array.from({ length: 4 }, () => runNow(ctx.runtime, workspaceId, job.id)));
  await allSucceeded(job.id, 4);
  expect(counter.most()).toBe(1);
  expect(await ctx.runtime.db.stepAttempt.count({ where: { stepExecution: { execution: { jobId: job.id } } } })).toBe(8);
}, 60_000);
