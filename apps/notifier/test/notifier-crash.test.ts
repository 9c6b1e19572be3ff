import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { catalog, createHttpClient, deliveryJobId, reconcileDeliveries, sendDelivery } from '@cronsvc/core';
import { aChannel, redisUrl, waitFor, type ChildApp } from '@cronsvc/core/testing';
import { jobWithRules, runToEnd, useNotifierFixture } from './notifier-fixture.js';

// The notifier here is a process of its own, so it can be killed for real in the middle of a send.
const f = useNotifierFixture({ notifier: false });
// Each test's notifiers go with it, so that the next test's sends are its own notifiers'.
const notifiers: ChildApp[] = [];
const spawnNotifier = (env: Record<string, string> = {}) => {
  const app = f.ctx.spawnApp('notifier', env);
  notifiers.push(app);
  return app;
};
afterEach(async () => {
  await Promise.all(notifiers.splice(0).map((app) => app.kill('SIGKILL').catch(() => undefined)));
});

it('loses nothing when the notifier is SIGKILLed mid-send: another re-sends with the same id, and a sent delivery is never sent again', async () => {
  const hook = await aChannel(f.ctx.runtime, f.workspace.id, 'webhook', { url: `${f.receiver.url}/webhook`, signing_secret: 's' });
  f.receiver.script({ hang: true });
  const first = spawnNotifier();
  const job = await jobWithRules(f, 500, [[hook.id, 'on_failure']]);
  const executionId = await runToEnd(f, job.id);

  await waitFor(() => f.receiver.at('/webhook').length === 1, { what: 'the first send to reach the receiver', timeoutMs: 30_000 });
  const delivery = await f.ctx.runtime.db.delivery.findFirstOrThrow({ where: { executionId } });
  expect(delivery).toMatchObject({ status: 'processing', attempts: 1 });
  await first.kill('SIGKILL');

  // Stands for the 30 s processing lease running out, rather than waiting it out.
  await f.ctx.runtime.db.delivery.update({ where: { id: delivery.id }, data: { nextAttemptAt: new Date(Date.now() - 1) } });
  spawnNotifier();
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

it('a notifier SIGKILLed mid-send is taken over by its restart once its heartbeat is silent: sent again with the same id, without the lease or the reconciler', async () => {
  const hook = await aChannel(f.ctx.runtime, f.workspace.id, 'webhook', { url: `${f.receiver.url}/takeover`, signing_secret: 's' });
  f.receiver.script({ hang: true });
  const first = spawnNotifier();
  const job = await jobWithRules(f, 500, [[hook.id, 'on_failure']]);
  const executionId = await runToEnd(f, job.id);
  await waitFor(() => f.receiver.at('/takeover').length === 1, { what: 'the first send to reach the receiver', timeoutMs: 30_000 });
  const delivery = await f.ctx.runtime.db.delivery.findFirstOrThrow({ where: { executionId } });
  expect(delivery).toMatchObject({ status: 'processing', attempts: 1, claimedBy: expect.stringMatching(/^wrk_/) });
  await first.kill('SIGKILL');
  const killedAt = Date.now();

  spawnNotifier();
  const sent = await waitFor(async () => {
    const d = await f.ctx.runtime.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } });
    return d.status === 'sent' ? d : undefined;
  }, { what: 'the delivery to be taken over and sent', timeoutMs: 20_000 });
  // The lease (30 s) is far off: the takeover sent it.
  expect(Date.now() - killedAt).toBeLessThan(20_000);
  expect(sent).toMatchObject({ attempts: 2, lastStatusCode: 200 });
  expect(f.receiver.at('/takeover').map((c) => c.headers['idempotency-key'])).toEqual([delivery.id, delivery.id]);
});

it('past STOP_GRACE_SECONDS a notifier hands the deliveries it is sending back: their leases end and the next notifier sends them at once', async () => {
  const hook = await aChannel(f.ctx.runtime, f.workspace.id, 'webhook', { url: `${f.receiver.url}/handback`, signing_secret: 's' });
  f.receiver.script({ hang: true });
  const first = spawnNotifier({ STOP_GRACE_SECONDS: '1', LOG_LEVEL: 'info' });
  const job = await jobWithRules(f, 500, [[hook.id, 'on_failure']]);
  const executionId = await runToEnd(f, job.id);
  await waitFor(() => f.receiver.at('/handback').length === 1, { what: 'the first send to reach the receiver', timeoutMs: 30_000 });
  const delivery = await f.ctx.runtime.db.delivery.findFirstOrThrow({ where: { executionId } });
  first.child.kill('SIGTERM');
  expect(await first.exited).toBe(0);
  expect(first.output()).toMatch(/deliveries in flight handed back/);
  const released = await f.ctx.runtime.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } });
  expect(released.status).toBe('processing');
  expect(released.nextAttemptAt!.getTime()).toBeLessThan(Date.now());

  spawnNotifier();
  const sent = await waitFor(async () => {
    const d = await f.ctx.runtime.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } });
    return d.status === 'sent' ? d : undefined;
  }, { what: 'the handed-back delivery to be sent', timeoutMs: 20_000 });
  expect(sent).toMatchObject({ attempts: 2, lastStatusCode: 200 });
  expect(f.receiver.at('/handback').map((c) => c.headers['idempotency-key'])).toEqual([delivery.id, delivery.id]);
});
