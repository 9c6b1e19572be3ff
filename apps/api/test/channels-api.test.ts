import { createHash } from 'node:crypto';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { aChannel, aJob, aRule } from '@cronsvc/core/testing';
import { useApiApp } from './api-app.js';

/** The same API with the target guard on, as in production. */
let guarded: ReturnType<typeof createApp>;
let ws: { id: string; token: string };
let auth: { Authorization: string };
let otherAuth: { Authorization: string };

const api = useApiApp();

beforeAll(async () => {
  guarded = createApp({ ...api.ctx.runtime, config: { ...api.ctx.config, allowPrivateTargets: false } });
  ws = await api.ctx.workspace('mine');
  auth = { Authorization: `Bearer ${ws.token}` };
  otherAuth = { Authorization: `Bearer ${(await api.ctx.workspace('theirs')).token}` };
});

const post = (body: unknown, as = auth, on = api.app) => request(on).post('/v1/notification-channels').set(as).send(body as object);
const details = (res: request.Response) => res.body.error.details as { path: string; message: string }[];
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const VALID: Record<string, Record<string, unknown>> = {
  webhook: { url: 'https://hooks.example.com/in', signing_secret: 'whsig_123456' },
  email: { email: 'ops@example.com' },
  chat_a: { webhook_url: 'https://chat-a.example.com/services/T/B/xyz', mention_text: '<!here>', include_output: true },
  chat_b: { webhook_url: 'https://chat-b.example.com/api/webhooks/1/abc', thread_id: '123456789', mention_role_ids: ['42'] },
  chat_c: { bot_token: '123456:ABC-def_ghi', chat_id: '-1001234567890', message_thread_id: 9 },
};

describe('POST /v1/notification-channels', () => {
  it.each([
    ['webhook', { url: 'https://hooks.example.com/in', signing_secret: 'whsig_123456' }, {}, ['url', 'signing_secret']],
    ['email', { email: 'ops@example.com' }, { email: 'ops@example.com' }, []],
    ['chat_a', VALID.chat_a, { mention_text: '<!here>', include_output: true }, ['webhook_url']],
    ['chat_b', VALID.chat_b, { thread_id: '123456789', mention_role_ids: ['42'], include_output: false }, ['webhook_url']],
    ['chat_c', VALID.chat_c, { chat_id: '-1001234567890', message_thread_id: 9, disable_web_page_preview: true, include_output: false }, ['bot_token']],
  ])('creates a %s channel: other config fields with their defaults, credentials only named', async (type, config, shown, secrets) => {
    const res = await post({ name: `my ${type}`, type, config });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^chn_/),
      name: `my ${type}`,
      type,
      config: shown,
      configured_secrets: secrets,
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
    });
    for (const field of secrets) expect(res.text).not.toContain(config[field as keyof typeof config] as string);
    const got = await request(api.app).get(`/v1/notification-channels/${res.body.id}`).set(auth);
    expect(got.body).toEqual(res.body);
  });

  it('stores credentials encrypted, not in the clear', async () => {
    const res = await post({ name: 'at rest', type: 'chat_c', config: { bot_token: '999:SECRET-token', chat_id: '1' } });
    const row = await api.ctx.runtime.db.notificationChannel.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row.credentials).toMatch(/^enc2:/);
    expect(JSON.stringify(row)).not.toContain('SECRET-token');
    // The destination key covers the bot token: keyed, so the database alone cannot test guesses against it.
    const unkeyed = createHash('sha256').update(JSON.stringify(['chat_c', '999:SECRET-token', '1', ''])).digest('hex');
    expect(row.destinationKey).toMatch(/^[0-9a-f]{64}$/);
    expect(row.destinationKey).not.toBe(unkeyed);
  });

  it('takes chat_a’s url as webhook_url and reports it under that name', async () => {
    const res = await post({ name: 'alias', type: 'chat_a', config: { url: 'https://chat-a.example.com/x' } });
    expect(res.status).toBe(201);
    expect(res.body.configured_secrets).toEqual(['webhook_url']);
    expect(res.body.config).toEqual({ include_output: false });
    const both = await post({ name: 'alias', type: 'chat_a', config: { url: 'https://a.example.com/', webhook_url: 'https://b.example.com/' } });
    expect(both.status).toBe(400);
  });

  it.each([
    ['no name', { type: 'email', config: VALID.email }, 'name'],
    ['a blank name', { name: '  ', type: 'email', config: VALID.email }, 'name'],
    ['no type', { name: 'x', config: VALID.email }, 'type'],
    ['an unknown type', { name: 'x', type: 'sms', config: {} }, 'type'],
    ['no config', { name: 'x', type: 'email' }, 'config'],
    ['a config that is not an object', { name: 'x', type: 'email', config: 'ops@example.com' }, 'config'],
    ['an unknown top-level field', { name: 'x', type: 'email', config: VALID.email, enabled: true }, 'enabled'],
    ['a webhook without url', { name: 'x', type: 'webhook', config: {} }, 'config.url'],
    ['a webhook url that is not http', { name: 'x', type: 'webhook', config: { url: 'ftp://example.com/' } }, 'config.url'],
    ['a webhook url that is not a URL', { name: 'x', type: 'webhook', config: { url: 'not a url' } }, 'config.url'],
    ['a signing_secret that is not a string', { name: 'x', type: 'webhook', config: { url: 'https://x.example.com', signing_secret: 5 } }, 'config.signing_secret'],
    ['a signing_secret with a line break', { name: 'x', type: 'webhook', config: { url: 'https://x.example.com', signing_secret: 'a\nb' } }, 'config.signing_secret'],
    ['an email without email', { name: 'x', type: 'email', config: {} }, 'config.email'],
    ['an email address that is not one', { name: 'x', type: 'email', config: { email: 'ops-at-example.com' } }, 'config.email'],
    ['an unknown config field', { name: 'x', type: 'email', config: { email: 'a@b.example', cc: 'c@d.example' } }, 'config.cc'],
    ['chat_a without webhook_url', { name: 'x', type: 'chat_a', config: { mention_text: 'hi' } }, 'config.webhook_url'],
    ['chat_a include_output that is not a boolean', { name: 'x', type: 'chat_a', config: { webhook_url: 'https://x.example.com', include_output: 'yes' } }, 'config.include_output'],
    ['chat_b without webhook_url', { name: 'x', type: 'chat_b', config: {} }, 'config.webhook_url'],
    ['chat_b role ids that are not numeric', { name: 'x', type: 'chat_b', config: { webhook_url: 'https://x.example.com', mention_role_ids: ['admins'] } }, 'config.mention_role_ids[0]'],
    ['chat_b thread_id that is not numeric', { name: 'x', type: 'chat_b', config: { webhook_url: 'https://x.example.com', thread_id: 'general' } }, 'config.thread_id'],
    ['chat_c without bot_token', { name: 'x', type: 'chat_c', config: { chat_id: '1' } }, 'config.bot_token'],
    ['chat_c bot_token with a slash', { name: 'x', type: 'chat_c', config: { bot_token: '1:a/../b', chat_id: '1' } }, 'config.bot_token'],
    ['chat_c without chat_id', { name: 'x', type: 'chat_c', config: { bot_token: '1:a' } }, 'config.chat_id'],
    ['chat_c chat_id as a number', { name: 'x', type: 'chat_c', config: { bot_token: '1:a', chat_id: 12345 } }, 'config.chat_id'],
    ['chat_c chat_id that is not numeric', { name: 'x', type: 'chat_c', config: { bot_token: '1:a', chat_id: '@channel' } }, 'config.chat_id'],
    ['chat_c message_thread_id of 0', { name: 'x', type: 'chat_c', config: { bot_token: '1:a', chat_id: '1', message_thread_id: 0 } }, 'config.message_thread_id'],
    ['chat_c disable_web_page_preview that is not a boolean', { name: 'x', type: 'chat_c', config: { bot_token: '1:a', chat_id: '1', disable_web_page_preview: 1 } }, 'config.disable_web_page_preview'],
    ['a placeholder that is not a secret', { name: 'x', type: 'webhook', config: { url: 'https://x.example.com/{{uuid}}' } }, 'config.url'],
    ['a secret the workspace does not have', { name: 'x', type: 'webhook', config: { url: 'https://x.example.com/{{secret.NOPE}}' } }, 'config.url'],
  ])('rejects %s with validation_failed at its path, and stores nothing', async (_what, body, path) => {
    const before = await api.ctx.runtime.db.notificationChannel.count({ where: { workspaceId: ws.id } });
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(details(res).map((d) => d.path)).toContain(path);
    expect(await api.ctx.runtime.db.notificationChannel.count({ where: { workspaceId: ws.id } })).toBe(before);
  });

  it.each([
    ['webhook', { url: 'http://localhost:8080/hook' }, 'config.url'],
    ['webhook', { url: 'http://169.254.169.254/latest/meta-data' }, 'config.url'],
    ['chat_a', { webhook_url: 'http://10.0.0.5/hook' }, 'config.webhook_url'],
    ['chat_b', { webhook_url: 'http://[::1]/hook' }, 'config.webhook_url'],
  ])('refuses a %s channel posting to a private address (%j)', async (type, config, path) => {
    const res = await post({ name: 'private', type, config }, auth, guarded);
    expect(res.status).toBe(400);
    expect(details(res)).toEqual([{ path, message: expect.stringContaining('publicly reachable') }]);
  });

  it('allows at most 25 channels per workspace', async () => {
    const limited = await api.ctx.workspace('limited');
    const as = { Authorization: `Bearer ${limited.token}` };
    await Promise.all(Array.from({ length: 25 }, (_, i) => post({ name: `c${i}`, type: 'email', config: VALID.email }, as).expect(201)));
    const over = await Promise.all([post({ name: 'c25', type: 'email', config: VALID.email }, as), post({ name: 'c26', type: 'email', config: VALID.email }, as)]);
    expect(over.map((r) => [r.status, r.body.error.code])).toEqual([[409, 'limit_exceeded'], [409, 'limit_exceeded']]);
    expect(await api.ctx.runtime.db.notificationChannel.count({ where: { workspaceId: limited.id } })).toBe(25);
  });
});

describe('listing, reading and PATCHing channels', () => {
  it('lists a workspace’s channels only, oldest first, with the list envelope', async () => {
    const fresh = await api.ctx.workspace('lister');
    const as = { Authorization: `Bearer ${fresh.token}` };
    const a = (await post({ name: 'a', type: 'email', config: VALID.email }, as)).body;
    const b = (await post({ name: 'b', type: 'chat_c', config: VALID.chat_c }, as)).body;
    const res = await request(api.app).get('/v1/notification-channels?limit=1&offset=1').set(as);
    expect(res.body).toEqual({ data: [b], total: 2, limit: 1, offset: 1 });
    expect((await request(api.app).get('/v1/notification-channels').set(as)).body.data.map((c: { id: string }) => c.id)).toEqual([a.id, b.id]);
    expect((await request(api.app).get('/v1/notification-channels?limit=0').set(as)).status).toBe(400);
  });

  it('answers 404 for another workspace’s channel, to every method', async () => {
    const mine = (await post({ name: 'mine', type: 'email', config: VALID.email })).body;
    for (const call of [
      request(api.app).get(`/v1/notification-channels/${mine.id}`),
      request(api.app).patch(`/v1/notification-channels/${mine.id}`).send({ name: 'x' }),
      request(api.app).delete(`/v1/notification-channels/${mine.id}`),
      request(api.app).post(`/v1/notification-channels/${mine.id}/test`),
    ]) {
      const res = await call.set(otherAuth);
      expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
    }
  });

  it('merges a PATCHed config one level deep: credentials left out stay, null removes one', async () => {
    const created = (await post({ name: 'hook', type: 'webhook', config: VALID.webhook })).body;
    const renamed = await request(api.app).patch(`/v1/notification-channels/${created.id}`).set(auth).send({ name: 'renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'renamed', configured_secrets: ['url', 'signing_secret'] });
    const unsigned = await request(api.app).patch(`/v1/notification-channels/${created.id}`).set(auth).send({ config: { signing_secret: null } });
    expect(unsigned.body.configured_secrets).toEqual(['url']);
    const row = await api.ctx.runtime.db.notificationChannel.findUniqueOrThrow({ where: { id: created.id } });
    const { decryptCredentials } = await import('@cronsvc/core');
    expect(decryptCredentials(api.ctx.config.secretsEncryptionKey, row, row.credentials)).toEqual({ url: VALID.webhook.url });
  });

  it('returns a field set to null to its default', async () => {
    const created = (await post({ name: 'tg', type: 'chat_c', config: { ...VALID.chat_c, disable_web_page_preview: false } })).body;
    expect(created.config.disable_web_page_preview).toBe(false);
    const res = await request(api.app).patch(`/v1/notification-channels/${created.id}`).set(auth).send({ config: { disable_web_page_preview: null, message_thread_id: null } });
    expect(res.body.config).toEqual({ chat_id: VALID.chat_c.chat_id, disable_web_page_preview: true, include_output: false });
  });

  it('changes the type only with a whole config of the new type', async () => {
    const created = (await post({ name: 'moving', type: 'email', config: VALID.email })).body;
    const bare = await request(api.app).patch(`/v1/notification-channels/${created.id}`).set(auth).send({ type: 'chat_b' });
    expect([bare.status, details(bare)[0].path]).toEqual([400, 'config']);
    const moved = await request(api.app).patch(`/v1/notification-channels/${created.id}`).set(auth).send({ type: 'chat_b', config: { webhook_url: 'https://chat-b.example.com/x' } });
    expect(moved.body).toMatchObject({ type: 'chat_b', config: { include_output: false }, configured_secrets: ['webhook_url'] });
  });

  it('validates a PATCH like a create and changes nothing when it fails', async () => {
    const created = (await post({ name: 'stays', type: 'chat_c', config: VALID.chat_c })).body;
    const empty = await request(api.app).patch(`/v1/notification-channels/${created.id}`).set(auth).send({});
    expect(empty.status).toBe(400);
    const bad = await request(api.app).patch(`/v1/notification-channels/${created.id}`).set(auth).send({ name: 'changed', config: { chat_id: 'x' } });
    expect([bad.status, details(bad).map((d) => d.path)]).toEqual([400, ['config.chat_id']]);
    expect((await request(api.app).get(`/v1/notification-channels/${created.id}`).set(auth)).body).toEqual(created);
  });

  it('deletes a channel with its rules (204), then answers 404', async () => {
    const channel = await aChannel(api.ctx.runtime, ws.id, 'email', VALID.email);
    const job = await aJob(api.ctx.runtime, ws.id);
    await aRule(api.ctx.runtime, ws.id, { kind: 'job', id: job.id }, channel.id, 'on_failure');
    expect((await request(api.app).delete(`/v1/notification-channels/${channel.id}`).set(auth)).status).toBe(204);
    expect(await api.ctx.runtime.db.notificationRule.count({ where: { channelId: channel.id } })).toBe(0);
    expect((await request(api.app).get(`/v1/notification-channels/${channel.id}`).set(auth)).status).toBe(404);
    expect((await request(api.app).delete(`/v1/notification-channels/${channel.id}`).set(auth)).status).toBe(404);
  });
});

describe('secrets referenced by channels', () => {
  it('accepts {{secret.NAME}} in a credential, and refuses to delete that secret while a channel uses it', async () => {
    const secret = await request(api.app).post('/v1/secrets').set(auth).send({ name: 'CHAT_TOKEN', value: '777:real-token' });
    const channel = await post({ name: 'tg', type: 'chat_c', config: { bot_token: '{{secret.CHAT_TOKEN}}', chat_id: '1' } });
    expect(channel.status).toBe(201);
    const refused = await request(api.app).delete(`/v1/secrets/${secret.body.id}`).set(auth);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'secret_in_use', message: expect.stringContaining(channel.body.id) });
    expect(await api.ctx.runtime.db.secret.count({ where: { id: secret.body.id } })).toBe(1);
    await request(api.app).delete(`/v1/notification-channels/${channel.body.id}`).set(auth).expect(204);
    expect((await request(api.app).delete(`/v1/secrets/${secret.body.id}`).set(auth)).status).toBe(204);
  });

  it('sees a channel saved while the secret is being deleted: one of the two loses', async () => {
    for (let i = 0; i < 5; i++) {
      const secret = await request(api.app).post('/v1/secrets').set(auth).send({ name: `RACE_${i}`, value: 'https://hooks.example.com/secret-path' });
      const [created, deleted] = await Promise.all([
        post({ name: 'race', type: 'webhook', config: { url: 'https://hooks.example.com/', signing_secret: `{{secret.RACE_${i}}}` } }),
        request(api.app).delete(`/v1/secrets/${secret.body.id}`).set(auth),
      ]);
      // Either the channel exists and the secret too, or the secret is gone and the channel was refused.
      expect([created.status, deleted.status].sort()).toEqual(created.status === 201 ? [201, 409] : [204, 400]);
    }
  });
});
