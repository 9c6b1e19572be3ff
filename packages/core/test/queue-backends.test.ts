import { DelayedError, type Worker } from 'bullmq';
import { executionJobId, type DeliveryPayload, type ExecutionPayload } from '../src/queues/catalog.js';
import { keepCompleted } from '../src/queues/queues.js';
import { createWorker, type Handler } from '../src/queues/workers.js';
import { createTestContext, type TestContext } from './test-context.js';
import { waitFor } from './wait-for.js';

// The producer (createQueues) and consumer (createWorker) interfaces the apps use, on both
// queue backends: whatever works on Redis must work on BullMQ's PostgreSQL backend.
describe.each(['redis', 'postgres'] as const)('queues on %s', (backend) => {
  let ctx: TestContext;
  const workers: Worker[] = [];
  let seq = 0;
  const executionId = () => `exe_queue_${backend}_${++seq}`;

  beforeAll(async () => {
    // No early hand-over: these tests look at the queue's own timing.
    ctx = await createTestContext({ QUEUE_BACKEND: backend, EXECUTOR_PREFETCH_MS: '0' });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()));
    await ctx.close();
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.close()));
  });

  /** A worker on the execution queue that records what it received, when. */
  function executionWorker(handler: Handler<ExecutionPayload> = async () => undefined, options: Record<string, unknown> = {}) {
    const received: { data: ExecutionPayload; at: number }[] = [];
    const worker = createWorker<ExecutionPayload>(
      'execution',
      async (data, job, token) => {
        received.push({ data, at: Date.now() });
        await handler(data, job, token);
      },
      // Short locks and stall checks for every worker: on Redis the first worker to check for
      // stalled jobs keeps the others from checking for a whole stalledInterval.
      { connection: ctx.runtime.workerConnection(), concurrency: 4, lockDuration: 1_000, stalledInterval: 500, ...options },
    );
    workers.push(worker as Worker);
    return { worker, received };
  }

  const queuedCounts = () => ctx.runtime.queues.dashboardQueues()[0].getJobCounts('waiting', 'delayed', 'active');

  it('hands a due attempt to a worker with its payload', async () => {
    const { received } = executionWorker();
    const id = executionId();
    const runAt = new Date();
    await ctx.runtime.queues.enqueueExecutions([{ executionId: id, attempt: 1, runAt }]);
    await waitFor(() => received.length === 1, { what: 'the attempt' });
    expect(received[0].data).toEqual({ executionId: id, attempt: 1, runAt: runAt.getTime() });
  });

  it('holds a delayed attempt back until it is due', async () => {
    const { received } = executionWorker();
    const id = executionId();
    const runAt = new Date(Date.now() + 700);
    await ctx.runtime.queues.enqueueExecutions([{ executionId: id, attempt: 1, runAt }]);
    await waitFor(() => received.length === 1, { what: 'the delayed attempt' });
    expect(received[0].at).toBeGreaterThanOrEqual(runAt.getTime());
  });

  it('queues each (execution, attempt) once: re-adding a pending one is a no-op', async () => {
    const id = executionId();
    const later = new Date(Date.now() + 60_000);
    await ctx.runtime.queues.enqueueExecutions([{ executionId: id, attempt: 1, runAt: later }]);
    await ctx.runtime.queues.enqueueExecutions([
      { executionId: id, attempt: 1, runAt: later },
      { executionId: id, attempt: 1, runAt: new Date() },
    ]);
    const queue = ctx.runtime.queues.dashboardQueues()[0];
    const job = await queue.getJob(executionJobId(id, 1));
    expect(job?.data).toMatchObject({ executionId: id, attempt: 1, runAt: later.getTime() });
    expect(await queuedCounts()).toMatchObject({ delayed: 1, waiting: 0 });
    await ctx.runtime.queues.cancelExecutions([{ executionId: id, attempt: 1 }]);
  });

  it('takes a cancelled attempt off the queue', async () => {
    const id = executionId();
    await ctx.runtime.queues.enqueueExecutions([{ executionId: id, attempt: 1, runAt: new Date(Date.now() + 60_000) }]);
    const queue = ctx.runtime.queues.dashboardQueues()[0];
    expect(await queue.getJob(executionJobId(id, 1))).toBeDefined();
    await ctx.runtime.queues.cancelExecutions([{ executionId: id, attempt: 1 }]);
    expect(await queue.getJob(executionJobId(id, 1))).toBeUndefined();
    // The same attempt can be queued again afterwards (the reconciler relies on it).
    await ctx.runtime.queues.enqueueExecutions([{ executionId: id, attempt: 1, runAt: new Date(Date.now() + 60_000) }]);
    expect(await queue.getJob(executionJobId(id, 1))).toBeDefined();
    await ctx.runtime.queues.cancelExecutions([{ executionId: id, attempt: 1 }]);
  });

  it('wakes a delayed attempt so that it runs now', async () => {
    const { received } = executionWorker();
    const id = executionId();
    await ctx.runtime.queues.enqueueExecutions([{ executionId: id, attempt: 1, runAt: new Date(Date.now() + 60_000) }]);
    await ctx.runtime.queues.wakeExecutions([{ executionId: id, attempt: 1 }]);
    await waitFor(() => received.length === 1, { what: 'the woken attempt', timeoutMs: 10_000 });
    expect(received[0].data.executionId).toBe(id);
  });

  it('lets a worker move its job back to delayed and receives it again when due (the executor’s retry path)', async () => {
    const { received } = executionWorker(async (_data, job, token) => {
      if (received.length === 1) {
        await job.moveToDelayed(Date.now() + 400, token);
        throw new DelayedError();
      }
    });
    const id = executionId();
    await ctx.runtime.queues.enqueueExecutions([{ executionId: id, attempt: 1, runAt: new Date() }]);
    await waitFor(() => received.length === 2, { what: 'the job to come back' });
    expect(received[1].at - received[0].at).toBeGreaterThanOrEqual(400);
    expect(received.map((r) => r.data.executionId)).toEqual([id, id]);
    await waitFor(async () => (await queuedCounts()).active === 0, { what: 'the job to complete' });
  });

  it('hands the job of a worker that died to another worker once its lock lapses', async () => {
    const id = executionId();
    let release: () => void = () => undefined;
    const stuck = executionWorker(() => new Promise<void>((resolve) => (release = resolve)));
    await ctx.runtime.queues.enqueueExecutions([{ executionId: id, attempt: 1, runAt: new Date() }]);
    await waitFor(() => stuck.received.length === 1, { what: 'the first worker to take the job' });
    // Force-closed, the worker stops renewing its lock without finishing the job, as if it had died.
    await stuck.worker.close(true);
    const second = executionWorker();
    await waitFor(() => second.received.length === 1, { what: 'the second worker to take the stalled job', timeoutMs: 15_000 });
    expect(second.received[0].data.executionId).toBe(id);
    release();
  });

  it('hands deliveries to the delivery worker', async () => {
    const received: DeliveryPayload[] = [];
    const worker = createWorker<DeliveryPayload>('delivery', async (data) => void received.push(data), { connection: ctx.runtime.workerConnection() });
    workers.push(worker as Worker);
    await ctx.runtime.queues.enqueueDeliveries([{ deliveryId: `dlv_${backend}`, attempt: 2, runAt: new Date() }]);
    await waitFor(() => received.length === 1, { what: 'the delivery' });
    expect(received[0]).toEqual({ deliveryId: `dlv_${backend}`, attempt: 2 });
  });
  it('keeps a completed job for the dashboard only when its handler says its attempt is done', async () => {
    const queue = ctx.runtime.queues.dashboardQueues()[0];
    const [kept, dropped] = [executionId(), executionId()];
    const { received } = executionWorker(async (data, job) => {
      if (data.executionId === kept) keepCompleted(job);
    });
    await ctx.runtime.queues.enqueueExecutions([kept, dropped].map((id) => ({ executionId: id, attempt: 1, runAt: new Date() })));
    await waitFor(() => received.length === 2, { what: 'both attempts' });
    await waitFor(async () => (await queue.getJobState(executionJobId(kept, 1))) === 'completed', { what: 'the kept job to complete' });
    await waitFor(async () => (await queue.getJob(executionJobId(dropped, 1))) === undefined, { what: 'the other job to go' });
    // A dropped id can be queued again, as a held attempt handed back is.
    await ctx.runtime.queues.enqueueExecutions([{ executionId: dropped, attempt: 1, runAt: new Date() }]);
    await waitFor(() => received.length === 3, { what: 'the attempt queued again' });
  });

  it('keeps a failed job, which the reconcilers’ adds replace while a plain add would be ignored', async () => {
    const queue = ctx.runtime.queues.dashboardQueues()[0];
    const id = executionId();
    let fail = true;
    const { received } = executionWorker(async () => {
      if (fail) throw new Error('the database is down');
    });
    const item = { executionId: id, attempt: 1, runAt: new Date() };
    await ctx.runtime.queues.enqueueExecutions([item]);
    await waitFor(async () => (await queue.getJobState(executionJobId(id, 1))) === 'failed', { what: 'the job to fail' });
    expect((await queue.getJob(executionJobId(id, 1)))?.failedReason).toBe('the database is down');
    fail = false;
    await ctx.runtime.queues.enqueueExecutions([item]);
    expect(await queue.getJobState(executionJobId(id, 1))).toBe('failed');
    await ctx.runtime.queues.requeueExecutions([item]);
    await waitFor(() => received.length === 2, { what: 'the attempt queued again by the reconciler' });
  });
});
