import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { catalog, executionJobId, type ExecutionPayload, type NotificationPayload } from './catalog.js';

export interface ExecutionEnqueue {
  executionId: string;
  attempt: number;
  runAt: Date;
}

/** The producer side of every queue; apps get one of these instead of BullMQ queues. */
export interface Queues {
  enqueueExecutions(items: ExecutionEnqueue[]): Promise<void>;
  enqueueNotification(payload: NotificationPayload): Promise<void>;
  close(): Promise<void>;
}

// Finished queue jobs are dropped at once: Postgres keeps the record, and a removed id can
// be queued again when an execution has to be re-run after Redis lost it.
const baseOptions: JobsOptions = { removeOnComplete: true, removeOnFail: true };

export function createQueues(connection: Redis, prefix: string, now: () => number = Date.now): Queues {
  const executions = new Queue<ExecutionPayload>(catalog.execution.queue, { connection, prefix });
  const notifications = new Queue<NotificationPayload>(catalog.notification.queue, { connection, prefix });
  return {
    async enqueueExecutions(items) {
      if (items.length === 0) return;
      const t = now();
      await executions.addBulk(
        items.map((item) => ({
          name: catalog.execution.job,
          data: { executionId: item.executionId, attempt: item.attempt },
          opts: { ...baseOptions, jobId: executionJobId(item.executionId, item.attempt), delay: Math.max(0, item.runAt.getTime() - t) },
        })),
      );
    },
    async enqueueNotification(payload) {
      await notifications.add(catalog.notification.job, payload, {
        ...baseOptions,
        jobId: `${payload.executionId}-${payload.status}`,
        attempts: 5,
        backoff: { type: 'exponential', delay: 1000 },
      });
    },
    async close() {
      await Promise.all([executions.close(), notifications.close()]);
    },
  };
}
