import { createHttpClient, relayEvents, sendDelivery } from '@cronsvc/core';
import { aJob, aOneTimeJob, waitFor } from '@cronsvc/core/testing';
import { useNotifierFixture } from './notifier-fixture.js';

// Callbacks go through the same target guard as job requests (docs/SECURITY.md): a callback URL
// whose name resolves to a loopback address is refused at connect time, once, without a retry.

// No notifier runs: the test sends the delivery itself, as a notifier that refuses private targets would.
const f = useNotifierFixture({ notifier: false });

it('fails a callback to a name that resolves to a loopback address as a blocked target, and sends nothing', async () => {
  const { ctx, target, receiver, workspace } = f;
  // Saved while private targets are allowed (the test context allows them), sent by a notifier that refuses them.
  const job = await aJob(ctx.runtime, workspace.id, aOneTimeJob({ request: { url: target.url }, on_success_url: `http://localhost:${receiver.port}/done` }));
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
