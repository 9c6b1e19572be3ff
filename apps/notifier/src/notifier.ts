import type { Worker } from 'bullmq';
import {
  createHttpClient,
  createMailer,
  createWorker,
  relayEvents,
  sendDelivery,
  SEND_TIMEOUT_MS,
  sweepMonitors,
  type DeliveryPayload,
  type Runtime,
} from '@cronsvc/core';
import { pollLoop } from './poll-loop.js';

// Deliveries one notifier sends at the same time; each holds one outbound connection at most.
const SEND_CONCURRENCY = 50;
// How often an idle relay looks for new events: the bulk of an event's way to its first send.
const RELAY_IDLE_MS = 100;
// How often overdue monitors are looked for: on_down leaves at most this long after the deadline.
const SWEEP_INTERVAL_MS = 500;

export interface Notifier {
  worker: Worker<DeliveryPayload>;
  stop(): Promise<void>;
}

/**
 * The notifier (docs/adr/009): relays outbox events into deliveries, marks overdue monitors down,
 * and sends deliveries (callbacks and notifications) from the deliveries queue.
 */
export function startNotifier(runtime: Runtime): Notifier {
  const { config, logger } = runtime;
  const mailer = config.smtpUrl ? createMailer({ smtpUrl: config.smtpUrl, from: config.smtpFrom, timeoutMs: SEND_TIMEOUT_MS, pool: true }) : null;
  const deps = { ...runtime, http: createHttpClient({ allowPrivateTargets: config.allowPrivateTargets }), mailer };
  const worker = createWorker<DeliveryPayload>(
    'delivery',
    async (data) => {
      const outcome = await sendDelivery(deps, data.deliveryId);
      if ('done' in outcome && outcome.done !== 'sent') logger.info('delivery not sent', { deliveryId: data.deliveryId, outcome: outcome.done });
    },
    { connection: runtime.workerRedis(), prefix: config.redisPrefix, concurrency: SEND_CONCURRENCY },
  );
  worker.on('error', (error) => logger.warn('notifier worker error', { error: error.message }));
  const onError = (name: string, error: unknown) => logger.warn(`${name} failed; retrying`, { error: (error as Error).message });
  // A full batch means more are waiting: the relay goes again at once.
  const stopRelay = pollLoop('event relay', async () => (await relayEvents(runtime)) > 0, RELAY_IDLE_MS, onError);
  const stopSweep = pollLoop(
    'monitor sweep',
    async () => {
      await sweepMonitors(runtime);
      return false;
    },
    SWEEP_INTERVAL_MS,
    onError,
  );
  logger.info('notifier started', { smtp: mailer !== null });
  return {
    worker,
    async stop() {
      await Promise.all([stopRelay(), stopSweep()]);
      await worker.close();
      mailer?.close();
    },
  };
}
