import type { JobsOptions, Queue } from 'bullmq';
import { catalog, deliveryJobId, executionJobId, type DeliveryPayload, type ExecutionPayload } from './catalog.js';
import { GroupCommit } from '../db/group-commit.js';
import { openQueue, type QueueConnection } from './queue-connection.js';

export interface ExecutionEnqueue {
  executionId: string;
  attempt: number;
  runAt: Date;
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

// Finished queue jobs are dropped at once: Postgres keeps the record, and a removed id can
// be queued again when an execution has to be re-run after the queue lost it.
const baseOptions: JobsOptions = { removeOnComplete: true, removeOnFail: true };

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

export function createQueues(
  connection: QueueConnection,
  options: { now?: () => number; timeoutMs?: number; deliverEarlyMs?: number; onError?: (error: Error) => void } = {},
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
  for (const queue of [executions, deliveries]) queue.on('error', (error) => options.onError?.(error));
  const addExecutions = batchedAdds(executions as Queue, connection.backend);
  const addDeliveries = batchedAdds(deliveries as Queue, connection.backend);
  return {
    async enqueueExecutions(items) {
      if (items.length === 0) return;
      // Delays count from the moment of the call, however long the add waits for its batch.
      const t = now();
      await bounded(
        Promise.all(
          items.map((item) =>
            addExecutions.add({
              name: catalog.execution.job,
              data: { executionId: item.executionId, attempt: item.attempt, runAt: item.runAt.getTime() },
              opts: { ...baseOptions, jobId: executionJobId(item.executionId, item.attempt), timestamp: t, delay: Math.max(0, item.runAt.getTime() - t - early) },
            }),
          ),
        ),
        timeoutMs,
      );
    },
    async enqueueDeliveries(items) {
      if (items.length === 0) return;
      const t = now();
      await bounded(
        Promise.all(
          items.map((item) =>
            addDeliveries.add({
              name: catalog.delivery.job,
              data: { deliveryId: item.deliveryId, attempt: item.attempt },
              opts: { ...baseOptions, jobId: deliveryJobId(item.deliveryId, item.attempt), timestamp: t, delay: Math.max(0, item.runAt.getTime() - t) },
            }),
          ),
        ),
        timeoutMs,
      );
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
