import type { Job, JobsOptions, KeepJobs, Queue } from 'bullmq';
import { catalog, deliveryJobId, executionJobId, type DeliveryPayload, type ExecutionPayload } from './catalog.js';
import { GroupCommit } from '../db/group-commit.js';
import { openQueue, type QueueConnection } from './queue-connection.js';
import { isConnectionError, type RedisOutage } from './redis-outage.js';
import type { Tracing } from '../tracing/tracing.js';

export interface ExecutionEnqueue {
  executionId: string;
  attempt: number;
  runAt: Date;
  /** The execution's workspace, carried in the payload for the executor's fair share. */
  workspaceId?: string;
  /** The enqueue's span, the parent of the claim's, set here when spans are exported. */
  traceparent?: string;
}

export interface DeliveryEnqueue {
  deliveryId: string;
  attempt: number;
  runAt: Date;
}

/** The producer side of every queue, on Redis or PostgreSQL; apps get one of these instead of BullMQ queues. */
export interface Queues {
  enqueueExecutions(items: ExecutionEnqueue[]): Promise<void>;
  enqueueDeliveries(items: DeliveryEnqueue[]): Promise<void>;
  /**
   * The reconcilers' adds: like the enqueues, except that a failed queue job kept under the same
   * id (for the dashboard) is replaced instead of making the add a no-op.
   */
  requeueExecutions(items: ExecutionEnqueue[]): Promise<void>;
  requeueDeliveries(items: DeliveryEnqueue[]): Promise<void>;
  /** Takes these executions' queued attempts off the queue (parked). */
  cancelExecutions(items: { executionId: string; attempt: number }[]): Promise<void>;
  /** Moves these executions' queued attempts, if delayed, to run now (a concurrency slot freed). */
  wakeExecutions(items: { executionId: string; attempt: number }[]): Promise<void>;
  /**
   * How many queue jobs each queue holds per state; it fails, within the producer's bound, when
   * the queue store does not answer (readiness and the metrics ask).
   */
  jobCounts(): Promise<QueueJobCounts[]>;
  /** The BullMQ queues themselves, for the admin dashboard only. */
  dashboardQueues(): Queue[];
  close(): Promise<void>;
}

export const COUNTED_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

export interface QueueJobCounts {
  queue: string;
  counts: Record<(typeof COUNTED_STATES)[number], number>;
}

/**
 * Finished queue jobs kept for the dashboard, bounded by count and age. A job id is its attempt
 * (executionJobId), and BullMQ ignores an add whose id it still holds, so a kept job must never
 * stand in the way of its attempt being queued again: a completed one is kept only when its
 * handler says the attempt is done for good (keepCompleted), and a failed one is replaced by
 * the reconcilers' adds (requeueExecutions).
 */
export const KEEP_COMPLETED: KeepJobs = { age: 3_600, count: 1_000 };
export const KEEP_FAILED: KeepJobs = { age: 24 * 3_600, count: 1_000 };

// Completed queue jobs are dropped at once unless their handler keeps them: Postgres keeps the
// record, and a removed id can be queued again (a held attempt handed back, a parked execution
// resumed, one the queue lost).
const baseOptions: JobsOptions = { removeOnComplete: true, removeOnFail: KEEP_FAILED };

/**
 * Called by a handler whose queue job's attempt is recorded (it will never be queued under this
 * id again): the job is kept among the completed ones for a while. BullMQ reads the job's
 * options when it moves it to completed, after the handler returns.
 */
export function keepCompleted(job: Job): void {
  job.opts.removeOnComplete = KEEP_COMPLETED;
}

export class QueueUnavailableError extends Error {}

/**
 * BullMQ waits for its store as long as it takes; a producer must not, since the work is already
 * safe in Postgres. Past `ms` the caller moves on and the reconciler queues the work later.
 */
function bounded<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new QueueUnavailableError(`queue did not answer within ${ms} ms`)), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

interface QueueAdd {
  name: string;
  data: ExecutionPayload | DeliveryPayload;
  opts: JobsOptions;
}

// BullMQ's addBulk on PostgreSQL builds two temporary tables per call: about 20 ms of server
// time, measured under load, against about 1 ms for an add. Below this many jobs, single adds
// (sent together) cost the server less; on Redis a bulk is always one cheap round trip.
const POSTGRES_BULK_MIN = 25;

/**
 * Adds to one queue, grouped: adds that arrive while earlier ones are in flight leave together
 * (up to 1,000, two groups in flight), so many requests enqueueing one attempt each cost a few
 * round trips. A group goes as one addBulk, or on PostgreSQL, when small, as single adds.
 */
function batchedAdds(queue: Queue, backend: QueueConnection['backend']): GroupCommit<QueueAdd, void> {
  const bulkMin = backend === 'postgres' ? POSTGRES_BULK_MIN : 2;
  return new GroupCommit<QueueAdd, void>(
    async (adds) => {
      if (adds.length < bulkMin) await Promise.all(adds.map((a) => queue.add(a.name, a.data, a.opts)));
      else await queue.addBulk(adds);
      return adds.map(() => undefined);
    },
    // A failed group fails all its adds at once: the failure is the store's, not one add's.
    { maxBatch: 1_000, maxInFlight: 2, retryAlone: false },
  );
}

// Adds kept while Redis is away, per process; past this many, adds fail as before and the
// reconciler queues the rest.
const MAX_HELD = 100_000;
// How soon adds that failed just as Redis came back are tried again.
const RETRY_HELD_MS = 250;

/**
 * Adds that failed because Redis was away, kept by queue job id until it is back, then added
 * again at once with their delays counted afresh (docs/RELIABILITY.md, "Losing Redis or
 * Postgres"). Adds are idempotent by attempt, and an attempt is claimed in Postgres before it
 * runs, so one added again that the reconciler or the scheduler's rebuild queued meanwhile still
 * runs once.
 */
class HeldAdds<T> {
  private readonly held = new Map<string, T>();
  constructor(private readonly idOf: (item: T) => string) {}
  /** Keeps `items` if `error` is Redis being away and there is room; false: the caller fails as before. */
  keep(items: T[], error: unknown, outage: RedisOutage | undefined): boolean {
    if (!outage || !(outage.down || isConnectionError(error)) || this.held.size + items.length > MAX_HELD) return false;
    outage.report(error as Error, 'queue error');
    for (const item of items) this.held.set(this.idOf(item), item);
    return true;
  }
  take(): T[] {
    const items = [...this.held.values()];
    this.held.clear();
    return items;
  }
}

/**
 * Runs `send` for `items`, each in an `execution.enqueue` span whose traceparent its payload
 * carries to the claim (docs/adr/030-spans-exported-over-otlp.md); without tracing, just `send`.
 */
async function tracedEnqueue(tracing: Tracing | undefined, items: ExecutionEnqueue[], requeue: boolean, send: (items: ExecutionEnqueue[]) => Promise<void>): Promise<void> {
  if (!tracing || items.length === 0) return send(items);
  const spans = items.map((item) =>
    tracing.start({
      name: 'execution.enqueue',
      kind: 'producer',
      traceKey: item.executionId,
      attributes: { 'cronsvc.execution_id': item.executionId, 'cronsvc.attempt': item.attempt, 'cronsvc.run_at': item.runAt.toISOString(), 'cronsvc.requeue': requeue },
    }),
  );
  try {
    await send(items.map((item, i) => ({ ...item, traceparent: spans[i].traceparent })));
  } catch (error) {
    for (const span of spans) span.end({ error: (error as Error).message });
    throw error;
  }
  for (const span of spans) span.end();
}

export function createQueues(
  connection: QueueConnection,
  options: { now?: () => number; timeoutMs?: number; deliverEarlyMs?: number; onError?: (error: Error) => void; outage?: RedisOutage; tracing?: Tracing } = {},
): Queues {
  const now = options.now ?? Date.now;
  // Redis notices the end of a blocking wait only on its next tick (every 100 ms at the default
  // hz), so a delayed job reaches a worker up to ~100 ms late. Handed over early, with its due
  // time in the payload, it is held by the executor and started on time by a local timer. The
  // PostgreSQL backend wakes its workers on time, but holding also lets attempts due together
  // claim together, so both backends hand over early.
  const early = options.deliverEarlyMs ?? 0;
  const timeoutMs = options.timeoutMs ?? 2_000;
  const executions = openQueue<ExecutionPayload>(catalog.execution.queue, connection);
  const deliveries = openQueue<DeliveryPayload>(catalog.delivery.queue, connection);
  for (const queue of [executions, deliveries]) queue.on('error', (error) => (options.outage ? options.outage.report(error, 'queue error') : options.onError?.(error)));
  const addExecutions = batchedAdds(executions as Queue, connection.backend);
  const addDeliveries = batchedAdds(deliveries as Queue, connection.backend);
  // Delays count from the moment of the call, however long the add waits for its batch.
  const executionAdd = (t: number) => (item: ExecutionEnqueue): QueueAdd => ({
    name: catalog.execution.job,
    data: {
      executionId: item.executionId,
      attempt: item.attempt,
      runAt: item.runAt.getTime(),
      ...(item.workspaceId ? { workspaceId: item.workspaceId } : {}),
      ...(item.traceparent ? { traceparent: item.traceparent } : {}),
    },
    opts: { ...baseOptions, jobId: executionJobId(item.executionId, item.attempt), timestamp: t, delay: Math.max(0, item.runAt.getTime() - t - early) },
  });
  const deliveryAdd = (t: number) => (item: DeliveryEnqueue): QueueAdd => ({
    name: catalog.delivery.job,
    data: { deliveryId: item.deliveryId, attempt: item.attempt },
    opts: { ...baseOptions, jobId: deliveryJobId(item.deliveryId, item.attempt), timestamp: t, delay: Math.max(0, item.runAt.getTime() - t) },
  });
  const add = async (adder: GroupCommit<QueueAdd, void>, adds: QueueAdd[]) => {
    if (adds.length > 0) await bounded(Promise.all(adds.map((a) => adder.add(a))), timeoutMs);
  };
  // Failures are rare (a store down, a bug): when the queue holds none, this costs one count.
  const replacingFailed = async (queue: Queue, adds: QueueAdd[]) => {
    if (adds.length === 0 || (await bounded(queue.getFailedCount(), timeoutMs)) === 0) return;
    const failed = new Set(await bounded(queue.getRanges(['failed'], 0, -1), timeoutMs));
    const stale = adds.map((a) => a.opts.jobId as string).filter((id) => failed.has(id));
    await bounded(Promise.all(stale.map((id) => queue.remove(id))), timeoutMs);
  };
  const { outage, tracing } = options;
  const heldExecutions = new HeldAdds<ExecutionEnqueue>((item) => executionJobId(item.executionId, item.attempt));
  const heldDeliveries = new HeldAdds<DeliveryEnqueue>((item) => deliveryJobId(item.deliveryId, item.attempt));
  const requeueExecutions = async (items: ExecutionEnqueue[]) => {
    const adds = items.map(executionAdd(now()));
    await replacingFailed(executions as Queue, adds);
    await add(addExecutions, adds);
  };
  const requeueDeliveries = async (items: DeliveryEnqueue[]) => {
    const adds = items.map(deliveryAdd(now()));
    await replacingFailed(deliveries as Queue, adds);
    await add(addDeliveries, adds);
  };
  const addHeld = () => {
    void orHeld(heldExecutions, heldExecutions.take(), requeueExecutions).catch((error) => options.onError?.(error as Error));
    void orHeld(heldDeliveries, heldDeliveries.take(), requeueDeliveries).catch((error) => options.onError?.(error as Error));
  };
  /** Runs `send`; when Redis is away, keeps the items for its return instead of failing. */
  async function orHeld<T>(held: HeldAdds<T>, items: T[], send: (items: T[]) => Promise<void>): Promise<void> {
    if (items.length === 0) return;
    try {
      await send(items);
    } catch (error) {
      if (!held.keep(items, error, outage)) throw error;
      // Failed while Redis was away, but it is back already: added again at once.
      if (!outage!.down) setTimeout(addHeld, RETRY_HELD_MS);
    }
  }
  outage?.onBack(addHeld);
  return {
    async enqueueExecutions(items) {
      await tracedEnqueue(tracing, items, false, (traced) => orHeld(heldExecutions, traced, (i) => add(addExecutions, i.map(executionAdd(now())))));
    },
    async enqueueDeliveries(items) {
      await orHeld(heldDeliveries, items, (i) => add(addDeliveries, i.map(deliveryAdd(now()))));
    },
    async requeueExecutions(items) {
      await tracedEnqueue(tracing, items, true, (traced) => orHeld(heldExecutions, traced, requeueExecutions));
    },
    async requeueDeliveries(items) {
      await orHeld(heldDeliveries, items, requeueDeliveries);
    },
    async cancelExecutions(items) {
      // remove() refuses a job a worker holds; that worker then finds the execution parked.
      await bounded(Promise.all(items.map((item) => executions.remove(executionJobId(item.executionId, item.attempt)))), timeoutMs);
    },
    async wakeExecutions(items) {
      await bounded(
        Promise.all(
          items.map(async (item) => {
            const job = await executions.getJob(executionJobId(item.executionId, item.attempt));
            // It may have started on its own in the meantime: then there is nothing to wake.
            if (job && (await job.isDelayed())) await job.promote().catch(() => undefined);
          }),
        ),
        timeoutMs,
      );
    },
    async jobCounts() {
      const queues = [executions, deliveries] as Queue[];
      const all = await bounded(Promise.all(queues.map((q) => q.getJobCounts(...COUNTED_STATES))), timeoutMs);
      return queues.map((q, i) => ({ queue: q.name, counts: Object.fromEntries(COUNTED_STATES.map((s) => [s, all[i][s] ?? 0])) as QueueJobCounts['counts'] }));
    },
    dashboardQueues() {
      return [executions, deliveries] as Queue[];
    },
    async close() {
      await Promise.all([executions.close(), deliveries.close()]);
    },
  };
}
