import { getExecution } from '@cronsvc/core';
import { aJob, aOneTimeJob, holdAnswers, waitFor } from '@cronsvc/core/testing';
import { startExecutor } from '../src/executor.js';
import { useExecutorFixture } from './executor-fixture.js';

// The test starts and stops its executor itself.
const fixture = useExecutorFixture({ executor: false });

it('finishes and records the attempt in flight when told to stop, and takes no new work', async () => {
  const { ctx, target, workspaceId } = fixture;
  const release = holdAnswers(target, 'finished late');
  const executor = startExecutor(ctx.runtime);
  const job = await aJob(ctx.runtime, workspaceId, aOneTimeJob({ name: 'in flight', request: { url: target.url } }));
  await waitFor(() => target.received.length === 1, { what: 'the request to start' });
  const stopping = executor.stop();
  let stopped = false;
  void stopping.then(() => (stopped = true));
  await new Promise((r) => setTimeout(r, 200));
  expect(stopped).toBe(false);
  release();
  await stopping;
  const exe = await ctx.runtime.db.execution.findFirstOrThrow({ where: { jobId: job.id } });
  expect((await getExecution(ctx.runtime, workspaceId, exe.id)).status).toBe('succeeded');

  const later = await aJob(ctx.runtime, workspaceId, aOneTimeJob({ name: 'after stop', request: { url: target.url } }));
  await new Promise((r) => setTimeout(r, 500));
  expect((await ctx.runtime.db.execution.findFirstOrThrow({ where: { jobId: later.id } })).status).toBe('queued');
  expect(target.received).toHaveLength(1);
});
