import { runNow, type RuleOwner } from '@cronsvc/core';
import { aChannel, aJob, aRule, waitFor } from '@cronsvc/core/testing';
import { allSettled, deliveriesOf, jobWithRules, runToEnd, useNotifierFixture } from './notifier-fixture.js';

// A tenant pointing many channels at one URL, or failing many jobs at once, must not turn the
// notifier into a flood aimed at someone else's server.

const f = useNotifierFixture({ env: { DELIVERY_RATE_LIMIT_PER_MINUTE: '3' } });

it('sends one message per event to a URL that 25 channels share, however many rules subscribe', async () => {
  const channels = [];
  for (let i = 0; i < 25; i += 1) channels.push(await aChannel(f.ctx.runtime, f.workspace.id, 'webhook', { url: `${f.receiver.url}/victim` }, `copy ${i}`));
  const rules = channels.flatMap((c): [string, string][] => [[c.id, 'on_failure'], [c.id, 'on_completion'], [c.id, 'on_success']]);
  const job = await jobWithRules(f, 500, rules);
  const executionId = await runToEnd(f, job.id);

  const deliveries = await deliveriesOf(f, executionId, allSettled(2));
  expect(deliveries.map((d) => [d.event, d.status]).sort()).toEqual([['on_completion', 'sent'], ['on_failure', 'sent']]);
  expect(f.receiver.at('/victim').map((r) => JSON.parse(r.body).event).sort()).toEqual(['execution.completed', 'execution.failed']);
});

it("holds a workspace's messages past DELIVERY_RATE_LIMIT_PER_MINUTE to the next minute, without using their attempts", async () => {
  const ws = await f.ctx.workspace('noisy');
  const job = await aJob(f.ctx.runtime, ws.id, { name: 'fails', request: { url: `${f.target.url}/fail` }, retry_policy: { max_attempts: 1 } });
  f.target.handle((_req, res) => {
    res.statusCode = 500;
    res.end('no');
  });
  const owner: RuleOwner = { kind: 'job', id: job.id };
  for (let i = 0; i < 5; i += 1) {
    const channel = await aChannel(f.ctx.runtime, ws.id, 'webhook', { url: `${f.receiver.url}/noisy-${i}` }, `channel ${i}`);
    await aRule(f.ctx.runtime, ws.id, owner, channel.id, 'on_failure');
  }
  const exe = await runNow(f.ctx.runtime, ws.id, job.id);
  const rows = await waitFor(
    async () => {
      const found = await f.ctx.runtime.db.delivery.findMany({ where: { executionId: exe.id } });
      return found.length === 5 && found.filter((d) => d.status === 'sent').length === 3 && found.filter((d) => d.status === 'pending').length === 2 ? found : undefined;
    },
    { what: 'three deliveries sent and two held back', timeoutMs: 20_000 },
  );
  expect(f.receiver.at('/noisy-')).toHaveLength(3);
  const now = Date.now();
  for (const held of rows.filter((d) => d.status === 'pending')) {
    expect(held.attempts).toBe(0);
    expect(held.nextAttemptAt!.getTime()).toBeGreaterThan(now);
    expect(held.nextAttemptAt!.getTime()).toBeLessThanOrEqual(now + 61_000);
  }
});
