import request from 'supertest';
import { aChannel, aJob, aMonitor } from '@cronsvc/core/testing';
import { useApiApp } from './api-app.js';

let ws: { id: string; token: string };
let other: { id: string; token: string };
let auth: { Authorization: string };
let channelId: string;

const api = useApiApp();

beforeAll(async () => {
  ws = await api.ctx.workspace('mine');
  other = await api.ctx.workspace('theirs');
  auth = { Authorization: `Bearer ${ws.token}` };
  channelId = (await aChannel(api.ctx.runtime, ws.id, 'email', { email: 'ops@example.com' })).id;
});

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe.each([
  ['jobs', 'job', ['on_success', 'on_failure', 'on_completion', 'on_approval_required'], ['on_down', 'on_recovery']],
  ['monitors', 'monitor', ['on_down', 'on_recovery'], ['on_success', 'on_failure', 'on_completion', 'on_approval_required']],
] as const)('/v1/%s/:id/notification-rules', (collection, kind, events, foreign) => {
  const owner = async (workspaceId = ws.id) => (kind === 'job' ? aJob(api.ctx.runtime, workspaceId) : aMonitor(api.ctx.runtime, workspaceId));
  const rules = (id: string) => `/v1/${collection}/${id}/notification-rules`;

  it.each(events)('creates, lists and deletes a rule for %s', async (event) => {
    const { id } = await owner();
    const created = await request(api.app).post(rules(id)).set(auth).send({ channel_id: channelId, event });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^rul_/),
      channel_id: channelId,
      event,
      job_id: kind === 'job' ? id : null,
      monitor_id: kind === 'monitor' ? id : null,
      after_consecutive_failures: 1,
      realert_after_minutes: 0,
      snoozed_until: null,
      last_delivered_at: null,
      held_back: 0,
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
    });
    expect((await request(api.app).get(rules(id)).set(auth)).body).toEqual({ data: [created.body], total: 1, limit: 50, offset: 0 });
    expect((await request(api.app).delete(`${rules(id)}/${created.body.id}`).set(auth)).status).toBe(204);
    expect((await request(api.app).get(rules(id)).set(auth)).body.total).toBe(0);
    expect((await request(api.app).delete(`${rules(id)}/${created.body.id}`).set(auth)).status).toBe(404);
  });

  it.each([
    ['an event of the other kind', (c: string) => ({ channel_id: c, event: foreign[0] }), 'event'],
    ['an unknown event', (c: string) => ({ channel_id: c, event: 'on_everything' }), 'event'],
    ['no event', (c: string) => ({ channel_id: c }), 'event'],
    ['no channel_id', () => ({ event: events[0] }), 'channel_id'],
    ['a channel that does not exist', () => ({ channel_id: 'chn_missing', event: events[0] }), 'channel_id'],
    ['an unknown field', (c: string) => ({ channel_id: c, event: events[0], muted: true }), 'muted'],
  ])('rejects %s with 400 at its path', async (_what, body, path) => {
    const { id } = await owner();
    const res = await request(api.app).post(rules(id)).set(auth).send(body(channelId));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await api.ctx.runtime.db.notificationRule.count({ where: { [kind === 'job' ? 'jobId' : 'monitorId']: id } })).toBe(0);
  });

  it('refuses another workspace’s channel as if it did not exist (400 on channel_id)', async () => {
    const { id } = await owner();
    const theirs = await aChannel(api.ctx.runtime, other.id, 'email', { email: 'x@example.com' });
    const res = await request(api.app).post(rules(id)).set(auth).send({ channel_id: theirs.id, event: events[0] });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: 'channel_id', message: expect.any(String) }]);
  });

  it('refuses the same channel and event twice on one owner (409 conflict)', async () => {
    const { id } = await owner();
    await request(api.app).post(rules(id)).set(auth).send({ channel_id: channelId, event: events[0] }).expect(201);
    const again = await request(api.app).post(rules(id)).set(auth).send({ channel_id: channelId, event: events[0] });
    expect([again.status, again.body.error.code]).toEqual([409, 'conflict']);
  });

  it('answers 404 for another workspace’s owner and for a missing one', async () => {
    const theirs = await owner(other.id);
    for (const id of [theirs.id, `${kind === 'job' ? 'job' : 'mon'}_missing`]) {
      expect((await request(api.app).get(rules(id)).set(auth)).status).toBe(404);
      expect((await request(api.app).post(rules(id)).set(auth).send({ channel_id: channelId, event: events[0] })).status).toBe(404);
    }
  });

  it(`deletes the rules with their ${kind}`, async () => {
    const { id } = await owner();
    await request(api.app).post(rules(id)).set(auth).send({ channel_id: channelId, event: events[0] }).expect(201);
    await request(api.app).delete(`/v1/${collection}/${id}`).set(auth).expect(204);
    expect(await api.ctx.runtime.db.notificationRule.count({ where: { [kind === 'job' ? 'jobId' : 'monitorId']: id } })).toBe(0);
  });
});
