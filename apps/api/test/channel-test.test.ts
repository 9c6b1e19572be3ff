import request from 'supertest';
import { createApp } from '../src/app.js';
import { aChannel, startReceiver, useNotificationReceivers, webhookSignatureValid, type Receiver, type SmtpReceiver, type TestContext, type TestWorkspace } from '@cronsvc/core/testing';
import { useApiApp } from './api-app.js';

let ctx: TestContext;
let receiver: Receiver;
let smtp: SmtpReceiver;
let app: ReturnType<typeof createApp>;
let ws: TestWorkspace;
let auth: { Authorization: string };

const sinks = useNotificationReceivers();
const api = useApiApp(() => sinks.env);
beforeAll(async () => {
  ({ ctx, app } = api);
  ({ receiver, smtp } = sinks);
  ws = await ctx.workspace();
  ({ auth } = ws);
});

const test = async (channelId: string, on = app) => {
  const res = await request(on).post(`/v1/notification-channels/${channelId}/test`).set(auth);
  expect(res.status).toBe(200);
  return res.body;
};

describe('POST /v1/notification-channels/:id/test', () => {
  it('sends a synthetic success event through a signed webhook, and records no delivery', async () => {
    const channel = await aChannel(ctx.runtime, ws.id, 'webhook', { url: `${receiver.url}/hook`, signing_secret: 'topsecret' });
    expect(await test(channel.id)).toEqual({ ok: true, channel_id: channel.id, provider: 'webhook' });
    expect(receiver.received).toHaveLength(1);
    const [call] = receiver.received;
    expect(JSON.parse(call.body)).toMatchObject({
      event: 'execution.succeeded',
      job: { id: 'job_test', name: 'Test notification' },
      execution: { id: 'exe_test', status: 'succeeded', status_code: 200 },
    });
    expect(webhookSignatureValid(call, 'topsecret')).toBe(true);
    expect(call.headers['idempotency-key']).toMatch(/^test_/);
    expect(await ctx.runtime.db.delivery.count()).toBe(0);
  });

  it.each([
    [404, true],
    [410, true],
    [503, false],
    [429, false],
  ])('reports a %i as not sent, permanent: %s, after one attempt', async (status, permanent) => {
    receiver.script({ status, body: 'nope' });
    const channel = await aChannel(ctx.runtime, ws.id, 'webhook', { url: `${receiver.url}/hook` });
    expect(await test(channel.id)).toEqual({
      ok: false,
      error: { code: 'notification_test_failed', message: `receiver answered ${status}: nope` },
      http_status: status,
      permanent,
    });
    expect(receiver.received).toHaveLength(1);
  });

  it('reports a receiver that cannot be reached with http_status 0, to be retried', async () => {
    const gone = await startReceiver();
    await gone.close();
    const channel = await aChannel(ctx.runtime, ws.id, 'webhook', { url: `${gone.url}/hook` });
    const body = await test(channel.id);
    expect(body).toMatchObject({ ok: false, http_status: 0, permanent: false, error: { code: 'notification_test_failed', message: expect.stringMatching(/^CONNECTION_ERROR/) } });
  });

  it.each([
    ['chat_a', { webhook_url: 'RECEIVER/chat-a' }, '/chat-a'],
    ['chat_b', { webhook_url: 'RECEIVER/chat-b', thread_id: '77' }, '/chat-b?thread_id=77'],
    ['chat_c', { bot_token: '123:abc', chat_id: '-100' }, '/chat-c/bot123:abc/sendMessage'],
  ])('sends a %s test message to its endpoint', async (type, config, path) => {
    const resolved = Object.fromEntries(Object.entries(config).map(([k, v]) => [k, v.replace('RECEIVER', receiver.url)]));
    const channel = await aChannel(ctx.runtime, ws.id, type, resolved);
    expect(await test(channel.id)).toEqual({ ok: true, channel_id: channel.id, provider: type });
    expect(receiver.received.map((r) => r.url)).toEqual([path]);
    expect(JSON.parse(receiver.received[0].body)).toBeInstanceOf(Object);
  });

  it('resolves {{secret.NAME}} in credentials at send time, and keeps secret values out of the error', async () => {
    await request(app).post('/v1/secrets').set(auth).send({ name: 'BOT', value: '555:from-the-secret' }).expect(201);
    const channel = await aChannel(ctx.runtime, ws.id, 'chat_c', { bot_token: '{{secret.BOT}}', chat_id: '1' });
    receiver.script({ status: 401, body: '{"ok":false,"description":"Unauthorized: token 555:from-the-secret was revoked"}' });
    const body = await test(channel.id);
    expect(receiver.received[0].url).toBe('/chat-c/bot555:from-the-secret/sendMessage');
    expect(receiver.received[0].body).not.toContain('from-the-secret');
    expect(body).toMatchObject({ ok: false, http_status: 401, permanent: true });
    expect(body.error.message).toContain('[secret]');
    expect(JSON.stringify(body)).not.toContain('from-the-secret');
  });

  it('sends a test email through SMTP_URL', async () => {
    const channel = await aChannel(ctx.runtime, ws.id, 'email', { email: 'ops@example.com' });
    expect(await test(channel.id)).toEqual({ ok: true, channel_id: channel.id, provider: 'email' });
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0].envelope.to).toEqual(['ops@example.com']);
    expect(smtp.mails[0].parsed.subject).toBe('[cron-service] Job "Test notification" succeeded');
  });

  it('reports an email the SMTP server refuses for good as permanent, with its reply code', async () => {
    smtp.refuseNext({ code: 550, message: 'mailbox unavailable' });
    const channel = await aChannel(ctx.runtime, ws.id, 'email', { email: 'nobody@example.com' });
    const body = await test(channel.id);
    expect(body).toMatchObject({ ok: false, http_status: 550, permanent: true, error: { message: expect.stringContaining('mailbox unavailable') } });
  });

  it('reports an email channel without SMTP_URL as a permanent failure naming the setting', async () => {
    const withoutSmtp = createApp({ ...ctx.runtime, config: { ...ctx.config, smtpUrl: undefined } });
    const channel = await aChannel(ctx.runtime, ws.id, 'email', { email: 'ops@example.com' });
    expect(await test(channel.id, withoutSmtp)).toEqual({
      ok: false,
      error: { code: 'notification_test_failed', message: 'email is not configured: set SMTP_URL' },
      http_status: 0,
      permanent: true,
    });
  });
});
