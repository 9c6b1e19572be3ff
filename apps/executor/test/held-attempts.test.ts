import type { Queue } from 'bullmq';
import { catalog, executionJobId, executionRow, parkExecution } from '@cronsvc/core';
import { aJob, waitFor } from '@cronsvc/core/testing';
import { startExecutor } from '../src/executor.js';
import { useExecutorFixture } from './executor-fixture.js';

// An attempt due soon is handed over by the queue up to EXECUTOR_PREFETCH_MS early; the
// executor holds it and starts it on a local timer at its due time.

const fixture = useExecutorFixture();
// The runtime's own execution queue, on whichever backend the test context uses.
let queue: Queue;

beforeAll(() => {
  queue = fixture.ctx.runtime.queues.dashboardQueues()[0];
});

/** A queued execution due `inMs` from now, handed to the queue the way the scheduler does. */
async function dueIn(inMs: number): Promise<{ id: string; due: Date }> {
  const { ctx, target, workspaceId } = fixture;
  const job = await aJob(ctx.runtime, workspaceId, { request: { url: target.url } });
  const due = new Date(Date.now() + inMs);
  const { id } = await ctx.runtime.db.execution.create({ data: executionRow({ workspaceId, jobId: job.id, jobName: job.name, source: 'schedule', scheduledFor: due }) });
  await ctx.runtime.queues.enqueueExecutions([{ executionId: id, attempt: 1, runAt: due }]);
  return { id, due };
}

const queueJob = (id: string) => queue.getJob(executionJobId(id, 1));

it('takes an attempt from the queue before it is due and sends it at its due time, not before', async () => {
  expect(fixture.ctx.config.executorPrefetchMs).toBeGreaterThan(2_000);
  const { id, due } = await dueIn(2_000);
  // Handed over early and held: its queue job is done while the attempt is still ahead.
  await waitFor(async () => (await queueJob(id)) === undefined, { what: 'the queue job to be taken' });
  expect(Date.now()).toBeLessThan(due.getTime());
  expect(fixture.target.received).toHaveLength(0);
  const arrival = await waitFor(() => fixture.target.received.find((r) => r.headers['x-cron-service-execution-id'] === id), { what: 'the request' });
  expect(arrival.at).toBeGreaterThanOrEqual(due.getTime());
  await waitFor(async () => (await fixture.ctx.runtime.db.execution.findUnique({ where: { id } }))?.status === 'succeeded', { what: 'the execution to succeed' });
});

it('holds a queue job that arrives a little before the prefetch window too', async () => {
  const { ctx, target, workspaceId } = fixture;
  const job = await aJob(ctx.runtime, workspaceId, { request: { url: target.url } });
  const due = new Date(Date.now() + ctx.config.executorPrefetchMs + 500);
  const { id } = await ctx.runtime.db.execution.create({ data: executionRow({ workspaceId, jobId: job.id, jobName: job.name, source: 'schedule', scheduledFor: due }) });
  // Handed over at once, half a second before its window opens.
  await queue.add(catalog.execution.job, { executionId: id, attempt: 1, runAt: due.getTime() }, { jobId: executionJobId(id, 1), removeOnComplete: true });
  await waitFor(async () => (await queueJob(id)) === undefined, { what: 'the queue job to be taken and held' });
  expect(Date.now()).toBeLessThan(due.getTime());
  const arrival = await waitFor(() => target.received.find((r) => r.headers['x-cron-service-execution-id'] === id), { what: 'the request', timeoutMs: 10_000 });
  expect(arrival.at).toBeGreaterThanOrEqual(due.getTime());
});

it('does not send a held attempt whose execution was parked before its time', async () => {
  const { id, due } = await dueIn(1_500);
  await waitFor(async () => (await queueJob(id)) === undefined, { what: 'the queue job to be taken' });
  const parked = await parkExecution(fixture.ctx.runtime, fixture.workspaceId, id);
  expect(parked.execution.status).toBe('waiting');
  await waitFor(() => Date.now() > due.getTime() + 500, { what: 'the due time to pass' });
  expect(fixture.target.received).toHaveLength(0);
  expect((await fixture.ctx.runtime.db.execution.findUniqueOrThrow({ where: { id } })).status).toBe('waiting');
});

it('hands held attempts back to the queue when it stops, and the next executor sends them on time', async () => {
  const { ctx, target } = fixture;
  const first = startExecutor(ctx.runtime);
  await fixture.executor.stop();
  const { id, due } = await dueIn(2_500);
  await waitFor(async () => (await queueJob(id)) === undefined, { what: 'the queue job to be taken' });
  await first.stop();
  expect(await (await queueJob(id))?.getState()).toMatch(/delayed|waiting|wait/);
  expect(target.received).toHaveLength(0);
  fixture.executor = startExecutor(ctx.runtime);
  const arrival = await waitFor(() => target.received.find((r) => r.headers['x-cron-service-execution-id'] === id), { what: 'the request' });
  expect(arrival.at).toBeGreaterThanOrEqual(due.getTime());
  expect(target.received).toHaveLength(1);
});
