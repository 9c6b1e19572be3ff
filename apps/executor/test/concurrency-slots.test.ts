import { executionRow, runNow } from '@cronsvc/core';
import { aJob, waitFor } from '@cronsvc/core/testing';
import { useExecutorFixture } from './executor-fixture.js';

// EXECUTOR_CONCURRENCY bounds the requests one executor has in flight, whether the attempt came
// straight from the queue or was held for its due time.

const fixture = useExecutorFixture({ env: { EXECUTOR_CONCURRENCY: '2' } });

it('never has more than EXECUTOR_CONCURRENCY requests in flight', async () => {
  const { ctx, target, workspaceId } = fixture;
  let open = 0;
  let most = 0;
  const waiting: (() => void)[] = [];
  target.handle(async (_req, res) => {
    open += 1;
    most = Math.max(most, open);
    await new Promise<void>((resolve) => waiting.push(resolve));
    open -= 1;
    res.end('ok');
  });
  const job = await aJob(ctx.runtime, workspaceId, { request: { url: target.url } });
  const due = new Date(Date.now() + 500);
  const held = await Promise.all(
    [1, 2, 3].map(async () => (await ctx.runtime.db.execution.create({ data: executionRow({ workspaceId, jobId: job.id, jobName: job.name, source: 'manual', scheduledFor: due }) })).id),
  );
  await ctx.runtime.queues.enqueueExecutions(held.map((id) => ({ executionId: id, attempt: 1, runAt: due })));
  await Promise.all([1, 2, 3].map(() => runNow(ctx.runtime, workspaceId, job.id)));

  // Let requests through one at a time while the others pile up behind the two slots.
  const finished = async () => ctx.runtime.db.execution.count({ where: { jobId: job.id, status: 'succeeded' } });
  await waitFor(
    async () => {
      if (waiting.length > 0 && Date.now() > due.getTime() + 200) waiting.shift()!();
      return (await finished()) === 6;
    },
    { what: 'all six executions to succeed', intervalMs: 100 },
  );
  expect(most).toBe(2);
  expect(target.received).toHaveLength(6);
});
