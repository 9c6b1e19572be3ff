import type { Worker } from 'bullmq';
import { createHttpClient, createRequestSigner, createWorker, sendDelivery, type DeliveryPayload, type Runtime } from '@cronsvc/core';

export interface Notifier {
  worker: Worker<DeliveryPayload>;
  stop(): Promise<void>;
}

/** Sends deliveries: execution callbacks today, notification channels once they exist. */
export function startNotifier(runtime: Runtime): Notifier {
  const { config, logger } = runtime;
  const http = createHttpClient({ allowPrivateTargets: config.allowPrivateTargets });
  const deps = { ...runtime, http, sign: createRequestSigner(runtime) };
  const worker = createWorker<DeliveryPayload>(
    'delivery',
    async (data) => {
      const outcome = await sendDelivery(deps, data.deliveryId);
      if ('done' in outcome && outcome.done !== 'sent') logger.info('delivery not sent', { deliveryId: data.deliveryId, outcome: outcome.done });
    },
    { connection: runtime.workerRedis(), prefix: config.redisPrefix, concurrency: 20 },
  );
  worker.on('error', (error) => logger.warn('notifier worker error', { error: error.message }));
  logger.info('notifier started');
  return {
    worker,
    async stop() {
      await worker.close();
      await http.close();
    },
  };
}
