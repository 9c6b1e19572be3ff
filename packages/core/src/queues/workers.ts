import { Worker, type Job, type WorkerOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { validate } from '../validation/validate.js';
import { catalog, type QueueName } from './catalog.js';

export type Handler<T> = (data: T, job: Job<T>, token: string | undefined) => Promise<void>;

/**
 * A BullMQ worker for one catalogued queue. The payload is validated again here: the
 * producer may be a different version of the service than the consumer.
 */
export function createWorker<T>(
  name: QueueName,
  handler: Handler<T>,
  options: { connection: Redis; prefix: string } & Partial<WorkerOptions>,
): Worker<T> {
  const entry = catalog[name];
  return new Worker<T>(
    entry.queue,
    async (job, token) => {
      const data = validate<T>(entry.schema, job.data);
      await handler(data, job, token);
    },
    { ...options, autorun: options.autorun ?? true },
  );
}
