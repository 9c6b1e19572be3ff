import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { catalog, createHttpClient, deliveryJobId, reconcileDeliveries, sendDelivery } from '@cronsvc/core';
import { aChannel, redisUrl, waitFor } from '@cronsvc/core/testing';
import { jobWithRules, runToEnd, useNotifierFixture } from './notifier-fixture.js';

// The notifier here is a process of its own, so it can be killed for real in the middle of a send.
const f = useNotifierFixture({ notifier: false });

it('loses nothing when the notifier is SIGKILLed mid-send: another re-sends with the same id, and a sent delivery is never sent again', async () => {
  const hook = await aChannel(f.ctx.runtime, f.workspace.id, 'webhook', { url: `${f.receiver.url}/webhook`, signing_secret: 's' });
  f.receiver.script({ hang: true });
  const first = f.ctx.spawnApp('notifier');
  const job = await jobWithRules(f, 500, [[hook.id, 'on_failure']]);
  const executionId = await runToEnd(f, job.id);

  await waitFor(() => f.receiver.at('/webhook').length === 1, { what: 'the first send to reach the receiver', timeoutMs: 30_000 });
  const delivery = await f.ctx.runtime.db.delivery.findFirstOrThrow({ where: { executionId } });
  expect(delivery).toMatchObject({ status: 'processing', attempts: 1 });
  await first.kill('SIGKILL');

  // Stands for the 30 s processing lease running out, rather than waiting it out.
  await f.ctx.runtime.db.delivery.update({ where: { id: delivery.id }, data: { nextAttemptAt: new Date(Date.now() - 1) } });
  f.ctx.spawnApp('notifier');
  // What the scheduler's reconciler does every RECONCILE_INTERVAL_MS.
  expect(await reconcileDeliveries(f.ctx.runtime, { dueBefore: new Date() })).toBe(1);
  const sent = await waitFor(async () => {
    const d = await f.ctx.runtime.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } });
    return d.status === 'sent' ? d : undefined;
  }, { what: 'the delivery to be re-sent by the second notifier', timeoutMs: 30_000 });
  expect(sent).toMatchObject({ attempts: 2, lastStatusCode: 200 });

  const calls = f.receiver.at('/webhook');
  expect(calls).toHaveLength(2);
  expect(calls.map((c) => c.headers['idempotency-key'])).toEqual([delivery.id, delivery.id]);
  expect(calls[1].body).toBe(calls[0].body);

  // Asked to send it again, through the queue and directly: nobody does.
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const queue = new Queue(catalog.delivery.queue, { connection, prefix: f.ctx.env.REDIS_PREFIX });
  try {
    await f.ctx.runtime.queues.enqueueDeliveries([{ deliveryId: delivery.id, attempt: 3, runAt: new Date() }]);
    await waitFor(async () => (await queue.getJob(deliveryJobId(delivery.id, 3))) === undefined, { what: 'the extra queue job to be handled' });
  } finally {
    await queue.close();
    connection.disconnect();
  }
  const direct = await sendDelivery({ ...f.ctx.runtime, http: createHttpClient({ allowPrivateTargets: true }), mailer: null }, delivery.id);
  expect(direct).toEqual({ skip: expect.any(String) });
  expect(f.receiver.at('/webhook')).toHaveLength(2);
  expect(await f.ctx.runtime.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({ status: 'sent', attempts: 2 });
});
