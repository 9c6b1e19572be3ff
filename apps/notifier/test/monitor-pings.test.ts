import request from 'supertest';
import { aChannel, aMonitor, aRule, pingTokenOf, waitFor } from '@cronsvc/core/testing';
import { useNotifierFixture } from './notifier-fixture.js';

// Every kind of ping through the API, with the state it leaves and the notifications a real
// receiver gets from the notifier.

const f = useNotifierFixture();
const auth = () => f.workspace.auth;
const monitorOf = async (id: string) => (await request(f.app).get(`/v1/monitors/${id}`).set(auth())).body;

/** A monitor whose on_down and on_recovery go to a webhook at `path` of the receiver. */
async function watched(path: string, fields: Record<string, unknown> = {}) {
  const hook = await aChannel(f.ctx.runtime, f.workspace.id, 'webhook', { url: `${f.receiver.url}${path}` });
  const monitor = await aMonitor(f.ctx.runtime, f.workspace.id, { expected_interval_sec: 3_600, ...fields });
  for (const event of ['on_down', 'on_recovery']) await aRule(f.ctx.runtime, f.workspace.id, { kind: 'monitor', id: monitor.id }, hook.id, event);
  const base = `/v1/ping/${pingTokenOf(f.ctx.runtime, monitor)}`;
  const events = () => f.receiver.at(path).map((r) => JSON.parse(r.body).event as string);
  return { monitor, base, events };
}

describe('ping kinds', () => {
  it('start, success, fail and exit statuses move the state, measure runs and notify at once', async () => {
    const { monitor, base, events } = await watched('/kinds/');
    const ping = (method: 'get' | 'post', suffix: string, body?: string) => {
      const call = request(f.app)[method](`${base}${suffix}`).set('User-Agent', 'backup.sh');
      return (body === undefined ? call : call.set('Content-Type', 'text/plain').send(body)).expect(200, { ok: true });
    };

    await ping('get', '/start');
    expect(await monitorOf(monitor.id)).toMatchObject({ state: 'up', next_expected_at: expect.any(String), last_duration_ms: null });
    await ping('post', '/0', 'backup done');
    const done = await monitorOf(monitor.id);
    expect(done).toMatchObject({ state: 'up', last_duration_ms: expect.any(Number) });
    expect(Date.parse(done.next_expected_at) - Date.parse(done.last_ping_at)).toBe(3_600_000);

    // A fail is down at once, not after the grace.
    await ping('post', '/fail', 'disk full');
    expect(await monitorOf(monitor.id)).toMatchObject({ state: 'down', next_expected_at: null, next_due_at: null });
    await waitFor(() => events().length === 1, { what: 'on_down after the fail' });
    expect(events()).toEqual(['monitor.down']);
    // A second fail in the same outage says nothing more.
    await ping('get', '/fail');

    await ping('get', '/start');
    expect((await monitorOf(monitor.id)).state).toBe('down');
    await ping('get', '');
    await waitFor(() => events().length === 2, { what: 'on_recovery after the success' });
    expect((await monitorOf(monitor.id)).state).toBe('up');

    await ping('get', '/3');
    await waitFor(() => events().length === 3, { what: 'on_down after exit status 3' });
    await ping('post', '/0');
    await waitFor(() => events().length === 4, { what: 'on_recovery after exit status 0' });
    expect(events()).toEqual(['monitor.down', 'monitor.recovered', 'monitor.down', 'monitor.recovered']);

    const history = (await request(f.app).get(`/v1/monitors/${monitor.id}/pings`).set(auth()).expect(200)).body;
    expect(history.total).toBe(8);
    const newestFirst = [['success', 0], ['fail', 3], ['success', null], ['start', null], ['fail', null], ['fail', null], ['success', 0], ['start', null]];
    expect(history.data.map((p: { kind: string; exit_status: number | null }) => [p.kind, p.exit_status])).toEqual(newestFirst);
    const [, , afterStart, , , failed, first] = history.data;
    expect(first).toEqual({
      kind: 'success', exit_status: 0, received_at: done.last_ping_at, duration_ms: done.last_duration_ms, body_preview: 'backup done', source_ip: expect.stringMatching(/127\.0\.0\.1/), user_agent: 'backup.sh',
    });
    expect(failed).toMatchObject({ kind: 'fail', body_preview: 'disk full', duration_ms: null });
    expect(afterStart.duration_ms).toEqual(expect.any(Number));

    const deliveries = await waitFor(async () => {
      const res = await request(f.app).get('/v1/notification-deliveries').set(auth());
      const mine = (res.body.data as { monitor_id: string; status: string; event: string }[]).filter((d) => d.monitor_id === monitor.id);
      return mine.length === 4 && mine.every((d) => d.status === 'sent') ? mine : undefined;
    }, { what: 'the four deliveries recorded sent' });
    expect(deliveries.map((d) => d.event).sort()).toEqual(['on_down', 'on_down', 'on_recovery', 'on_recovery']);
  });

  it('takes a new monitor down at once on a fail', async () => {
    const { monitor, base, events } = await watched('/fresh-fail/');
    await request(f.app).post(`${base}/1`).expect(200);
    expect((await monitorOf(monitor.id)).state).toBe('down');
    await waitFor(() => events().length === 1, { what: 'on_down of the new monitor' });
  });

  it('answers a bad exit status with 400, a path that is none with 404, and an unknown token with 404 on every kind', async () => {
    const { monitor, base } = await watched('/bad/');
    const bad = await request(f.app).get(`${base}/256`);
    expect([bad.status, bad.body.error.code, bad.body.error.details]).toEqual([400, 'validation_failed', [{ path: 'exit_status', message: 'must be an exit status from 0 to 255' }]]);
    expect((await request(f.app).get(`${base}/finish`)).status).toBe(404);
    for (const kind of ['', '/start', '/fail', '/0', '/7']) expect((await request(f.app).post(`/v1/ping/${'x'.repeat(43)}${kind}`)).status).toBe(404);
    expect((await request(f.app).put(`${base}/start`)).headers.allow).toBe('GET, POST');
    expect(await monitorOf(monitor.id)).toMatchObject({ state: 'new', last_ping_at: null });
  });

  it('goes down when a started run outlasts max_duration_sec, soon after, and recovers with the run’s duration', async () => {
    const { monitor, base, events } = await watched('/too-long/', { max_duration_sec: 1 });
    await request(f.app).get(base).expect(200);
    await request(f.app).get(`${base}/start`).expect(200);
    const started = await monitorOf(monitor.id);
    expect(Date.parse(started.next_due_at) - Date.parse(started.last_ping_at)).toBe(1_000);
    await waitFor(() => events().length === 1, { what: 'on_down after max_duration_sec' });
    const payload = JSON.parse(f.receiver.at('/too-long/')[0].body);
    const late = Date.parse(payload.timestamp) - Date.parse(started.next_due_at);
    expect(late).toBeGreaterThan(0);
    expect(late).toBeLessThan(2_000);
    await request(f.app).get(base).expect(200);
    await waitFor(() => events().length === 2, { what: 'on_recovery on the success' });
    expect((await monitorOf(monitor.id)).last_duration_ms).toBeGreaterThanOrEqual(1_000);
  });
});
