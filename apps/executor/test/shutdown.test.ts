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

it('hands the attempt in flight back when told to abandon it: released at once, run again by another executor under the same id', async () => {
  const { ctx, target, workspaceId } = fixture;
  const unanswered: (() => void)[] = [];
  const answerLate = () => unanswered.splice(0).forEach((answer) => answer());
  target.handle(async (_req, res) => {
    await new Promise<void>((resolve) => unanswered.push(resolve));
    res.end('late');
  });
  const sent = () => target.received.filter((r) => r.url === '/abandoned');
  const first = startExecutor(ctx.runtime);
  const stopping = first.stop.bind(first);
  try {
    const job = await aJob(ctx.runtime, workspaceId, aOneTimeJob({ name: 'abandoned', request: { url: `${target.url}/abandoned` } }));
    await waitFor(() => sent().length === 1, { what: 'the request to start' });
    // The earlier test's job, queued after its stop, may be in flight too.
    expect(first.inFlight()).toBeGreaterThanOrEqual(1);
    const stopped = first.stop();
    await first.abandon();
    await stopped;
    const exe = await ctx.runtime.db.execution.findFirstOrThrow({ where: { jobId: job.id } });
    // Claimable now, not after EXECUTION_LEASE_MS; nothing recorded.
    expect(exe.status).toBe('running');
    expect(exe.lockedUntil).toBeNull();
    // The first request's answer comes after the hand-back: it is not recorded.
    answerLate();
    target.handle((_req, res) => {
      res.end('again');
    });
    const second = startExecutor(ctx.runtime);
    try {
      await waitFor(async () => (await getExecution(ctx.runtime, workspaceId, exe.id)).status === 'succeeded', { what: 'the execution to run again' });
      expect(sent().map((r) => r.headers['webhook-id'])).toEqual([exe.id, exe.id]);
      expect((await getExecution(ctx.runtime, workspaceId, exe.id)).attempts).toHaveLength(1);
    } finally {
      await second.stop();
    }
  } finally {
    answerLate();
    await stopping();
  }
});
