import type { Worker } from 'bullmq';
import { createWorker, type NotificationPayload, type Runtime } from '@cronsvc/core';

export interface Notifier {
  worker: Worker<NotificationPayload>;
  stop(): Promise<void>;
}

/**
 * Consumes finished-execution events. Channels, rules and callbacks are not built yet, so
 * each event is only logged; the queue contract is in place for them.
 */
export function startNotifier(runtime: Runtime): Notifier {
  const { config, logger } = runtime;
  const worker = createWorker<NotificationPayload>(
    'notification',
    async (data) => {
      logger.info('execution finished', { executionId: data.executionId, status: data.status });
    },
    { connection: runtime.workerRedis(), prefix: config.redisPrefix, concurrency: 20 },
  );
  worker.on('error', (error) => logger.warn('notifier worker error', { error: error.message }));
  logger.info('notifier started');
  return {
    worker,
    async stop() {
      await worker.close();
    },
  };
}
