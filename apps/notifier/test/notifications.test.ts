import request from 'supertest';
import { aChannel, waitFor, webhookSignatureValid } from '@cronsvc/core/testing';
import { allSettled, channelsOfEveryType, deliveriesOf, jobWithRules, runToEnd, useNotifierFixture } from './notifier-fixture.js';

const f = useNotifierFixture();
const auth = () => f.workspace.auth;

describe('notifications of a job', () => {
  it('sends one message per rule to each of the five channel types, in its own format', async () => {
    const ch = await channelsOfEveryType(f);
    const job = await jobWithRules(f, 503, Object.values(ch).map((c) => [c.id, 'on_failure']));
    const executionId = await runToEnd(f, job.id);
    const deliveries = await deliveriesOf(f, executionId, allSettled(5));
    expect(deliveries.map((d) => d.status)).toEqual(Array(5).fill('sent'));
    expect(deliveries.map((d) => d.channel_id).sort()).toEqual(Object.values(ch).map((c) => c.id).sort());
    expect(deliveries.every((d) => d.kind === 'channel' && d.event === 'on_failure' && d.url === null && typeof d.rule_id === 'string' && d.attempts === 1)).toBe(true);

    const [hook] = f.receiver.at('/webhook');
    expect(JSON.parse(hook.body)).toEqual({
      event: 'execution.failed',
      job: { id: job.id, name: 'nightly export' },
      execution: { id: executionId, status: 'failed', status_code: 503, body_preview: 'it broke', error_class: 'HTTP_5XX' },
      output: null,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      held_back: 0,
      snooze_url: expect.stringMatching(/^https:\/\/cron\.example\.com\/v1\/snooze\/[A-Za-z0-9_-]{24}$/),
    });
    expect(webhookSignatureValid(hook, 'hook-secret')).toBe(true);
    expect(hook.headers['content-type']).toBe('application/json');
    const hookDelivery = deliveries.find((d) => d.channel_id === ch.webhook.id)!;
    expect(hook.headers['idempotency-key']).toBe(hookDelivery.id);

    const chatA = JSON.parse(f.receiver.at('/chat-a')[0].body);
    expect(chatA.text).toBe('<!here> 🔴 Job "nightly export" failed');
    expect(chatA.blocks.map((b: { type: string }) => b.type)).toEqual(['section', 'header', 'section', 'context', 'actions']);
    expect(JSON.stringify(chatA.blocks)).toContain('Status: failed (HTTP 503)');

    const chatB = JSON.parse(f.receiver.at('/chat-b')[0].body);
    expect(chatB).toMatchObject({ content: '<@&42>', allowed_mentions: { parse: [], roles: ['42'] } });
    expect(chatB.embeds[0]).toMatchObject({ title: 'Job "nightly export" failed', color: 0xcf222e, timestamp: JSON.parse(hook.body).timestamp });
    expect(chatB.embeds[0].description).toContain('```\nit broke\n```');

    const chatC = f.receiver.at('/chat-c')[0];
    expect(chatC.url).toBe('/chat-c/bot123:abc/sendMessage');
    expect(JSON.parse(chatC.body)).toMatchObject({ chat_id: '-1001', parse_mode: 'HTML', disable_web_page_preview: true, message_thread_id: 5 });
    expect(JSON.parse(chatC.body).text).toContain('<b>Status:</b> failed (HTTP 503)');

    expect(f.smtp.mails).toHaveLength(1);
    expect(f.smtp.mails[0].parsed.subject).toBe('[cron-service] Job "nightly export" failed');
  });

  it('sends on_success and on_completion for a success, named execution.succeeded and execution.completed, and no on_failure', async () => {
    const hook = await aChannel(f.ctx.runtime, f.workspace.id, 'webhook', { url: `${f.receiver.url}/webhook` });
    const job = await jobWithRules(f, 200, [[hook.id, 'on_success'], [hook.id, 'on_completion'], [hook.id, 'on_failure']]);
    const executionId = await runToEnd(f, job.id);
    const deliveries = await deliveriesOf(f, executionId, allSettled(2));
    expect(deliveries.map((d) => d.event).sort()).toEqual(['on_completion', 'on_success']);
    expect(f.receiver.at('/webhook').map((r) => JSON.parse(r.body).event).sort()).toEqual(['execution.completed', 'execution.succeeded']);
  });

  it('sends nothing to channels for a job with notification_override mute_all, but still its callback', async () => {
    const hook = await aChannel(f.ctx.runtime, f.workspace.id, 'webhook', { url: `${f.receiver.url}/webhook` });
    const job = await jobWithRules(f, 500, [[hook.id, 'on_failure'], [hook.id, 'on_completion']], {
      notification_override: 'mute_all',
      on_failure_url: `${f.receiver.url}/callback`,
    });
    const executionId = await runToEnd(f, job.id);
    const deliveries = await deliveriesOf(f, executionId, allSettled(1));
    expect(deliveries).toEqual([expect.objectContaining({ kind: 'callback', event: 'on_failure', status: 'sent' })]);
    expect(f.receiver.at('/webhook')).toEqual([]);
    expect(f.receiver.at('/callback')).toHaveLength(1);
    // Unmuted again, the same job notifies.
    await request(f.app).patch(`/v1/jobs/${job.id}`).set(auth()).send({ notification_override: 'inherit' }).expect(200);
    const next = await runToEnd(f, job.id);
    await deliveriesOf(f, next, allSettled(3));
    expect(f.receiver.at('/webhook')).toHaveLength(2);
  });
});

describe('delivery retries', () => {
  it('retries a 500 with backoff and records the delivery sent on the second attempt', async () => {
    const hook = await aChannel(f.ctx.runtime, f.workspace.id, 'chat_a', { webhook_url: `${f.receiver.url}/chat-a` });
    f.receiver.script({ status: 500, body: 'down' });
    const job = await jobWithRules(f, 500, [[hook.id, 'on_failure']]);
    const [delivery] = await deliveriesOf(f, await runToEnd(f, job.id), allSettled(1));
    expect(delivery).toMatchObject({ status: 'sent', attempts: 2, last_status_code: 200, last_error: null });
    const [first, second] = f.receiver.at('/chat-a');
    expect(second.at - first.at).toBeGreaterThanOrEqual(800 - 50);
    expect(second.headers['idempotency-key']).toBe(first.headers['idempotency-key']);
  });

  it('waits what a 429’s Retry-After asks', async () => {
    const hook = await aChannel(f.ctx.runtime, f.workspace.id, 'chat_b', { webhook_url: `${f.receiver.url}/chat-b` });
    f.receiver.script({ status: 429, headers: { 'Retry-After': '2' }, body: '{"retry_after": 2}' });
    const job = await jobWithRules(f, 500, [[hook.id, 'on_failure']]);
    const [delivery] = await deliveriesOf(f, await runToEnd(f, job.id), allSettled(1));
    expect(delivery).toMatchObject({ status: 'sent', attempts: 2 });
    const [first, second] = f.receiver.at('/chat-b');
    expect(second.at - first.at).toBeGreaterThanOrEqual(2000 - 50);
  });

  it('fails after the fifth transient failure, and a retry starts a new round', async () => {
    const hook = await aChannel(f.ctx.runtime, f.workspace.id, 'webhook', { url: `${f.receiver.url}/webhook` });
    // Retry-After 0 keeps the five attempts quick.
    f.receiver.script(...Array.from({ length: 5 }, () => ({ status: 429, headers: { 'Retry-After': '0' } })));
    const job = await jobWithRules(f, 500, [[hook.id, 'on_failure']]);
    const executionId = await runToEnd(f, job.id);
    const [failed] = await deliveriesOf(f, executionId, allSettled(1));
    expect(failed).toMatchObject({ status: 'failed', attempts: 5, last_status_code: 429, last_error: 'receiver answered 429: ok' });
    expect(f.receiver.at('/webhook')).toHaveLength(5);
    const listed = await request(f.app).get('/v1/notification-deliveries?status=failed').set(auth());
    expect(listed.body.data).toContainEqual(expect.objectContaining({ id: failed.id, kind: 'channel', channel_id: hook.id, execution_id: executionId, monitor_id: null }));

    const retried = await request(f.app).post(`/v1/notification-deliveries/${failed.id}/retry`).set(auth());
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id: failed.id, status: 'pending', attempts: 0 });
    const [sent] = await deliveriesOf(f, executionId, (d) => d[0]?.status === 'sent');
    expect(sent).toMatchObject({ attempts: 1, last_status_code: 200 });
    expect(f.receiver.at('/webhook')).toHaveLength(6);
  });

  it('fails a permanent status at once', async () => {
    const chatC = await aChannel(f.ctx.runtime, f.workspace.id, 'chat_c', { bot_token: '1:x', chat_id: '1' });
    f.receiver.script({ status: 403, body: '{"ok":false,"description":"Forbidden: bot was blocked by the user"}' });
    const job = await jobWithRules(f, 500, [[chatC.id, 'on_failure']]);
    const [failed] = await deliveriesOf(f, await runToEnd(f, job.id), allSettled(1));
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 403, last_error: expect.stringContaining('bot was blocked') });
  });

  it('fails a delivery whose channel was deleted before it was sent', async () => {
    const hook = await aChannel(f.ctx.runtime, f.workspace.id, 'webhook', { url: `${f.receiver.url}/webhook` });
    f.receiver.script({ status: 503 });
    const job = await jobWithRules(f, 500, [[hook.id, 'on_failure']]);
    const executionId = await runToEnd(f, job.id);
    await waitFor(() => f.receiver.at('/webhook').length === 1, { what: 'the first attempt' });
    await request(f.app).delete(`/v1/notification-channels/${hook.id}`).set(auth()).expect(204);
    const [failed] = await deliveriesOf(f, executionId, allSettled(1));
    expect(failed).toMatchObject({ status: 'failed', attempts: 2, last_error: 'the channel was deleted', channel_id: hook.id });
    expect(f.receiver.at('/webhook')).toHaveLength(1);
  });
});
