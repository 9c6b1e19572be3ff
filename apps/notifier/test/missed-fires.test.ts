import { fireDueJobs } from '@cronsvc/core';
import { aJob, anOutageOf, aRule, waitFor, webhookSignatureValid } from '@cronsvc/core/testing';
import { channelsOfEveryType, useNotifierFixture } from './notifier-fixture.js';

// on_missed (docs/NOTIFICATIONS.md): one message per window of missed slots, through every
// channel type, with the fire.missed payload.
const f = useNotifierFixture();

async function jobBehind(name: string, rules: [string, string][], extra: Record<string, unknown> = {}) {
  const job = await aJob(f.ctx.runtime, f.workspace.id, { kind: 'recurring', name, schedule: { every_n_minutes: 1 }, request: { url: `${f.target.url}/run` }, ...extra });
  for (const [channelId, event] of rules) await aRule(f.ctx.runtime, f.workspace.id, { kind: 'job', id: job.id }, channelId, event);
  return job;
}

const deliveriesOfJob = (jobId: string) => f.ctx.runtime.db.delivery.findMany({ where: { event: 'on_missed', payload: { path: ['job', 'id'], equals: jobId } } });

it('sends one on_missed message per window to each of the five channel types, listing the missed slots', async () => {
  const ch = await channelsOfEveryType(f);
  const job = await jobBehind('nightly export', Object.values(ch).map((c) => [c.id, 'on_missed']));
  const slots = await anOutageOf(f.ctx.runtime, job.id, 3);
  await fireDueJobs(f.ctx.runtime, { lookaheadMs: 0 });
  const deliveries = await waitFor(async () => {
    const found = await deliveriesOfJob(job.id);
    return found.length === 5 && found.every((d) => d.status === 'sent') ? found : undefined;
  }, { what: 'five sent on_missed deliveries', timeoutMs: 20_000 });
  expect(deliveries.map((d) => d.channelId).sort()).toEqual(Object.values(ch).map((c) => c.id).sort());
  expect(deliveries.every((d) => d.executionId === null && d.monitorId === null && d.kind === 'channel')).toBe(true);

  const [hook] = f.receiver.at('/webhook');
  expect(JSON.parse(hook.body)).toEqual({
    event: 'fire.missed',
    job: { id: job.id, name: 'nightly export' },
    // The catch-up ran the window's first slot; the others are the missed ones.
    fires: slots.slice(1).map((s) => ({ scheduled_for: s.toISOString(), outcome: 'missed', reason: null })),
    timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    held_back: 0,
  });
  expect(webhookSignatureValid(hook, 'hook-secret')).toBe(true);
  expect(JSON.parse(f.receiver.at('/chat-a')[0].body).text).toContain('Job "nightly export" missed 2 runs');
  expect(JSON.parse(f.receiver.at('/chat-b')[0].body).embeds[0].title).toBe('Job "nightly export" missed 2 runs');
  expect(JSON.parse(f.receiver.at('/chat-c')[0].body).text).toContain('missed 2 runs');
  expect(f.smtp.mails.map((m) => m.parsed.subject)).toEqual(['[cron-service] Job "nightly export" missed 2 runs']);

  // Another pass records no slot again, and so writes no second event (the event is written only with new gaps).
  await fireDueJobs(f.ctx.runtime, { lookaheadMs: 0 });
  expect(await f.ctx.runtime.db.fireGap.count({ where: { jobId: job.id } })).toBe(2);
  expect(await f.ctx.runtime.db.event.count({ where: { jobId: job.id } })).toBe(0);
});

it('announces nothing for a job without an on_missed rule, nor for one that mutes notifications', async () => {
  const { webhook } = await channelsOfEveryType(f);
  const quiet = await jobBehind('quiet', [[webhook.id, 'on_failure']]);
  const muted = await jobBehind('muted', [[webhook.id, 'on_missed']], { notification_override: 'mute_all' });
  await anOutageOf(f.ctx.runtime, quiet.id, 2);
  await anOutageOf(f.ctx.runtime, muted.id, 2);
  await fireDueJobs(f.ctx.runtime, { lookaheadMs: 0 });
  expect(await f.ctx.runtime.db.event.count({ where: { jobId: { in: [quiet.id, muted.id] } } })).toBe(0);
  expect(await f.ctx.runtime.db.fireGap.count({ where: { jobId: { in: [quiet.id, muted.id] } } })).toBe(2);
});
