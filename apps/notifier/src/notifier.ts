import type { Worker } from 'bullmq';
import {
  createHttpClient, createRequestSigner, createWorker, sendDelivery, type DeliveryPayload, type NotificationPayload, type Runtime,
} from '@cronsvc/core';

export interface Notifier {
  workers: Worker[];
  stop(): Promise<void>;
}

/**
 * Sends deliveries (execution callbacks today) and consumes finished-execution events, which
 * are only logged until notification channels and rules exist.
 */
export function startNotifier(runtime: Runtime): Notifier {
  const { config, logger } = runtime;
  const deps = { ...runtime, http: createHttpClient({ allowPrivateTargets: config.allowPrivateTargets }), sign: createRequestSigner(runtime) };
  const finished = createWorker<NotificationPayload>(
    'notification',
    async (data) => {
      logger.info('execution finished', { executionId: data.executionId, status: data.status });
    },
    { connection: runtime.workerRedis(), prefix: config.redisPrefix, concurrency: 20 },
  );
  const deliveries = createWorker<DeliveryPayload>(
    'delivery',
    async (data) => {
      const outcome = await sendDelivery(deps, data.deliveryId);
      if ('done' in outcome && outcome.done !== 'sent') logger.info('delivery not sent', { deliveryId: data.deliveryId, outcome: outcome.done });
    },
    { connection: runtime.workerRedis(), prefix: config.redisPrefix, concurrency: 20 },
  );
  const workers = [finished, deliveries] as Worker[];
  for (const worker of workers) worker.on('error', (error) => logger.warn('notifier worker error', { error: error.message }));
  logger.info('notifier started');
  return {
    workers,
    async stop() {
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}
