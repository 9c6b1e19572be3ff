import { runNow } from '@cronsvc/core';
import { aJob, waitFor, type TestContext } from '@cronsvc/core/testing';
import { useExecutorFixture } from './executor-fixture.js';

let ctx: TestContext;
let workspaceId: string;
let inFlight = 0;
let maxInFlight = 0;

const fixture = useExecutorFixture({ executor: false });
beforeAll(() => {
  ({ ctx, workspaceId } = fixture);
  // Two executor processes, as a scaled-out deployment runs them.
  ctx.spawnApp('executor');
  ctx.spawnApp('executor');
});
beforeEach(() => {
  maxInFlight = 0;
  fixture.target.handle(async (_req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((r) => setTimeout(r, 300));
    inFlight -= 1;
    res.end('ok');
  });
});

async function burst(cap: number | undefined, count: number) {
  const job = await aJob(ctx.runtime, workspaceId, {
    name: `capped ${cap}`,
    request: { url: fixture.target.url },
    ...(cap === undefined ? {} : { max_concurrent_executions: cap }),
  });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await runNow(ctx.runtime, workspaceId, job.id)).id);
  return { jobId: job.id, ids };
}

const statuses = async (ids: string[]) => (await ctx.runtime.db.execution.findMany({ where: { id: { in: ids } } })).map((e) => e.status);

it('never runs more than max_concurrent_executions at once across two executors; the rest wait queued', async () => {
  const { ids } = await burst(1, 5);
  await waitFor(async () => (await statuses(ids)).includes('running'), { what: 'one execution to start' });
  const snapshot = await statuses(ids);
  expect(snapshot.filter((s) => s === 'running')).toHaveLength(1);
  expect(snapshot.filter((s) => s === 'queued').length).toBeGreaterThanOrEqual(3);
  await waitFor(async () => (await statuses(ids)).every((s) => s === 'succeeded'), { timeoutMs: 30_000, what: 'all five to succeed' });
  expect(maxInFlight).toBe(1);
  const attempts = await ctx.runtime.db.attempt.count({ where: { executionId: { in: ids } } });
  expect(attempts).toBe(5);
});

it('fills but does not exceed a cap of 2', async () => {
  const { ids } = await burst(2, 6);
  await waitFor(async () => (await statuses(ids)).every((s) => s === 'succeeded'), { timeoutMs: 30_000, what: 'all six to succeed' });
  expect(maxInFlight).toBe(2);
});

it('runs executions of an uncapped request job side by side', async () => {
  const { ids } = await burst(undefined, 4);
  await waitFor(async () => (await statuses(ids)).every((s) => s === 'succeeded'), { timeoutMs: 30_000, what: 'all four to succeed' });
  expect(maxInFlight).toBeGreaterThanOrEqual(2);
});
