import type { Job, Worker, WorkerOptions } from 'bullmq';
import { validate } from '../validation/validate.js';
import { catalog, type QueueName } from './catalog.js';
import { openWorker, type QueueConnection } from './queue-connection.js';

export type Handler<T> = (data: T, job: Job<T>, token: string | undefined) => Promise<void>;

/**
 * A BullMQ worker for one catalogued queue, on Redis or PostgreSQL as the connection says. The
 * payload is validated again here: the producer may be a different version of the service
 * than the consumer.
 */
export function createWorker<T>(name: QueueName, handler: Handler<T>, options: { connection: QueueConnection } & Partial<Omit<WorkerOptions, 'connection' | 'prefix'>>): Worker<T> {
  const entry = catalog[name];
  const { connection, ...rest } = options;
  return openWorker<T>(
    entry.queue,
    async (job, token) => {
      const data = validate<T>(entry.schema, job.data);
      await handler(data, job, token);
    },
    connection,
    { ...rest, autorun: rest.autorun ?? true },
  );
}
