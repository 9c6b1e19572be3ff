import { createHttpClient, createJob, relayEvents, sendDelivery } from '@cronsvc/core';
import { createTestContext, startTargetServer, waitFor, type TargetServer, type TestContext } from '@cronsvc/core/testing';
import { startExecutor, type Executor } from '@cronsvc/executor';

// Callbacks go through the same target guard as job requests (docs/SECURITY.md): a callback URL
// whose name resolves to a loopback address is refused at connect time, once, without a retry.

let ctx: TestContext;
let target: TargetServer;
let receiver: TargetServer;
let executor: Executor;

beforeAll(async () => {
  ctx = await createTestContext();
  [target, receiver] = await Promise.all([startTargetServer(), startTargetServer()]);
  executor = startExecutor(ctx.runtime);
});
afterAll(async () => {
  await executor.stop();
  await Promise.all([target.close(), receiver.close()]);
  await ctx.close();
});

it('fails a callback to a name that resolves to a loopback address as a blocked target, and sends nothing', async () => {
  const workspace = await ctx.workspace();
  // Saved while private targets are allowed (the test context allows them), sent by a notifier that refuses them.
  const { job } = await createJob(ctx.runtime, workspace.id, { name: 'guarded callback', kind: 'one_time', request: { url: target.url }, on_success_url: `http://localhost:${receiver.port}/done` });
  // The execution's outbox event becomes its callback delivery when a relay takes it (no notifier runs here).
  const delivery = await waitFor(
    async () => {
      await relayEvents(ctx.runtime, { dispatch: () => undefined });
      return (await ctx.runtime.db.delivery.findFirst({ where: { execution: { jobId: job.id } } })) ?? undefined;
    },
    { what: 'the callback delivery' },
  );
  const http = createHttpClient({ allowPrivateTargets: false });
  try {
    const outcome = await sendDelivery({ ...ctx.runtime, config: { ...ctx.config, allowPrivateTargets: false }, http, mailer: null }, delivery.id);
    expect(outcome).toEqual({ done: 'failed' });
  } finally {
    await http.close();
  }
  const stored = await ctx.runtime.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } });
  expect(stored).toMatchObject({ status: 'failed', attempts: 1, nextAttemptAt: null });
  expect(stored.lastError).toMatch(/localhost does not resolve to a public address/);
  expect(stored.lastError).not.toMatch(/127\.0\.0\.1|::1/);
  expect(receiver.received).toHaveLength(0);
});
