import { DelayedError, type Worker } from 'bullmq';
import {
  createHttpClient,
  createMailer,
  createRateLimiter,
  createWorker,
  keepCompleted,
  dueDeliveries,
  observeDelivery,
  relayEvents,
  releaseDeliveries,
  repeat,
  sendDelivery,
  SEND_TIMEOUT_MS,
  sweepMonitors,
  type DeliveryPayload,
  type Runtime,
} from '@cronsvc/core';
import { watchDeadNotifiers } from './dead-notifiers.js';
import { LocalSends } from './local-sends.js';

// Deliveries one notifier sends at the same time; each holds one outbound connection at most.
const SEND_CONCURRENCY = 50;
// How often an idle relay looks for new events: the bulk of an event's way to its first send.
const RELAY_IDLE_MS = 100;
// The relay takes no more events while this many of its deliveries wait for a send slot.
const LOCAL_BACKLOG = 2_000;
// How often overdue monitors are looked for: on_down leaves at most this long after the deadline.
const SWEEP_INTERVAL_MS = 500;
// At most this many due deliveries are sent at start-up; the rest are the reconciler's.
const DUE_AT_START = 10_000;

export interface Notifier {
  worker: Worker<DeliveryPayload>;
  stop(): Promise<void>;
  /** Ends the leases of the deliveries still being sent and queues them again; stop() then ends without them. */
  abandon(): Promise<void>;
}

/**
 * The notifier (docs/adr/009): relays outbox events into deliveries and sends their first attempt
 * at once, marks overdue monitors down, and sends retries and recovered deliveries (callbacks and
 * notifications) from the deliveries queue.
 */
export function startNotifier(runtime: Runtime, options: { workerId?: string } = {}): Notifier {
  const { config, logger } = runtime;
  // The id of this notifier's heartbeat, which its claims carry (dead-notifiers.ts).
  const workerId = options.workerId ?? runtime.workerId;
  const mailer = config.smtpUrl ? createMailer({ smtpUrl: config.smtpUrl, from: config.smtpFrom, timeoutMs: SEND_TIMEOUT_MS, pool: true }) : null;
  const http = createHttpClient({ allowPrivateTargets: config.allowPrivateTargets });
  const store = runtime.redis ? { redis: runtime.redis, prefix: config.redisPrefix } : { pool: runtime.pool };
  const deps = { ...runtime, workerId, http, mailer, channelLimiter: createRateLimiter(store, config.deliveryRateLimitPerMinute) };
  /** Whether the attempt was made and recorded, and until when one held back by its workspace's limit waits. */
  const send = async (deliveryId: string): Promise<{ recorded: boolean; heldUntil: Date | null }> => {
    const outcome = await sendDelivery(deps, deliveryId);
    if ('done' in outcome) {
      observeDelivery(outcome.done);
      if (outcome.done !== 'sent') logger.info('delivery not sent', { deliveryId, outcome: outcome.done });
    }
    return { recorded: 'done' in outcome, heldUntil: 'heldUntil' in outcome ? outcome.heldUntil : null };
  };
  // Retries, and deliveries the reconciler queues again, come through the queue. One held back by
  // its workspace's limit goes back to the delayed set under the same queue job.
  const worker = createWorker<DeliveryPayload>(
    'delivery',
    async (data, job, token) => {
      const sent = await send(data.deliveryId);
      if (sent.heldUntil) {
        await job.moveToDelayed(sent.heldUntil.getTime(), token);
        throw new DelayedError();
      }
      // Recorded: this attempt is never queued again, so the dashboard may show it for a while.
      if (sent.recorded) keepCompleted(job);
    },
    { connection: runtime.workerConnection(), concurrency: SEND_CONCURRENCY },
  );
  worker.on('error', (error) => runtime.reportQueueError(error, 'notifier worker error'));
  const onError = (name: string, error: unknown) => {
    logger.warn(`${name} failed; retrying`, { error: (error as Error).message });
  };
  // A relay or sweep that failed because the database is away goes again the moment it answers,
  // and the outage is logged once rather than every pass (docs/adr/033-noticing-the-database-is-back.md).
  const untilBack = { untilRetry: (error: unknown) => runtime.databaseOutage.untilBack(error) };
  // First attempts of what the relay writes are sent from here, without a round through Redis.
  const sendFirst = async (deliveryId: string) => {
    const { heldUntil } = await send(deliveryId);
    if (heldUntil) await runtime.queues.enqueueDeliveries([{ deliveryId, attempt: 1, runAt: heldUntil }]);
  };
  const local = new LocalSends((id) => sendFirst(id).catch((error) => onError('delivery', error)), SEND_CONCURRENCY);
  // A full batch means more are waiting: the relay goes again at once, unless enough is in hand.
  const stopRelay = repeat(
    'event relay',
    async () => local.backlog < LOCAL_BACKLOG && (await relayEvents(runtime, { dispatch: (ids) => local.push(ids) })) > 0,
    RELAY_IDLE_MS,
    onError,
    untilBack,
  );
  const stopSweep = repeat(
    'monitor sweep',
    async () => {
      await sweepMonitors(runtime);
    },
    SWEEP_INTERVAL_MS,
    onError,
    untilBack,
  );
  // A dead notifier's deliveries, those it was sending and those it had relayed, are sent from here.
  const deadNotifiers = watchDeadNotifiers(runtime, { workerId, take: ({ running, due }) => local.push([...running, ...due]) });
  // What is due when this notifier starts (another, or this one's previous life, may have relayed
  // it and died) goes out now rather than at the reconciler's next pass.
  void dueDeliveries(runtime.pool, DUE_AT_START)
    .then((ids) => local.push(ids))
    .catch((error) => onError('sending the deliveries due at start-up', error));
  let abandoned: Promise<void> | undefined;
  let handedBack: () => void = () => undefined;
  const whenHandedBack = new Promise<void>((resolve) => (handedBack = resolve));
  logger.info('notifier started', { smtp: mailer !== null });
  return {
    worker,
    async stop() {
      await Promise.all([stopRelay(), stopSweep(), deadNotifiers.stop()]);
      const unsent = local.stopStarting();
      // Handed to the queue rather than left for the reconciler, so they are not late.
      await runtime.queues
        .enqueueDeliveries(unsent.map((deliveryId) => ({ deliveryId, attempt: 1, runAt: runtime.clock.now() })))
        .catch((error) => logger.warn('handing unsent deliveries to the queue failed; the reconciler will queue them', { count: unsent.length, error: (error as Error).message }));
      // Past the grace period the sends still out are handed back (abandon) and not waited for.
      const closed = worker.close();
      await Promise.race([Promise.all([local.settled(), closed]), whenHandedBack]);
      mailer?.close();
      if (abandoned) void http.close();
      else await http.close();
    },
    abandon() {
      abandoned ??= (async () => {
        const released = await releaseDeliveries(runtime.pool, workerId).catch((error: Error) => {
          logger.warn('releasing the deliveries in hand failed; they are sent again once their leases end', { error: error.message });
          return [];
        });
        await runtime.queues
          .enqueueDeliveries(released.map((d) => ({ deliveryId: d.id, attempt: d.attempts + 1, runAt: runtime.clock.now() })))
          .catch((error) => logger.warn('queueing the deliveries handed back failed; the reconciler will queue them', { count: released.length, error: (error as Error).message }));
        logger.warn('deliveries in flight handed back: they are sent again, under the same delivery ids', { deliveries: released.length });
        handedBack();
      })();
      return abandoned;
    },
  };
}
