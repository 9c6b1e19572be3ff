import request from 'supertest';
import { aChannel, aMonitor, aRule, pingTokenOf, waitFor, webhookSignatureValid } from '@cronsvc/core/testing';
import { useNotifierFixture } from './notifier-fixture.js';

const f = useNotifierFixture();
const auth = () => f.workspace.auth;

async function monitorDeliveries(monitorId: string) {
  const res = await request(f.app).get('/v1/notification-deliveries').set(auth());
  return (res.body.data as Record<string, unknown>[]).filter((d) => d.monitor_id === monitorId);
}

describe('heartbeat monitors', () => {
  it('goes down when a ping is overdue, tells on_down once, and on_recovery at the first ping after', async () => {
    const hook = await aChannel(f.ctx.runtime, f.workspace.id, 'webhook', { url: `${f.receiver.url}/webhook`, signing_secret: 'mon-secret' });
    const chatB = await aChannel(f.ctx.runtime, f.workspace.id, 'chat_b', { webhook_url: `${f.receiver.url}/chat-b` });
    const monitor = await aMonitor(f.ctx.runtime, f.workspace.id, { name: 'backup heartbeat', expected_interval_sec: 1 });
    const owner = { kind: 'monitor' as const, id: monitor.id };
    for (const channel of [hook, chatB]) for (const event of ['on_down', 'on_recovery']) await aRule(f.ctx.runtime, f.workspace.id, owner, channel.id, event);
    const ping = () => request(f.app).get(`/v1/ping/${pingTokenOf(f.ctx.runtime, monitor)}`).expect(200);

    await ping();
    const pinged = (await request(f.app).get(`/v1/monitors/${monitor.id}`).set(auth())).body;
    expect(pinged.state).toBe('up');

    await waitFor(() => f.receiver.at('/webhook').length === 1 && f.receiver.at('/chat-b').length === 1, { what: 'the on_down notifications' });
    const down = f.receiver.at('/webhook')[0];
    expect(webhookSignatureValid(down, 'mon-secret')).toBe(true);
    const payload = JSON.parse(down.body);
    expect(payload).toEqual({
      event: 'monitor.down',
      monitor: { id: monitor.id, name: 'backup heartbeat', expected_interval_sec: 1, last_ping_at: pinged.last_ping_at },
      timestamp: expect.any(String),
      held_back: 0,
      snooze_url: expect.stringMatching(/\/v1\/snooze\/[A-Za-z0-9_-]{24}$/),
    });
    // Detected after the deadline (last ping + 1 s), and soon after it.
    const late = Date.parse(payload.timestamp) - (Date.parse(pinged.last_ping_at) + 1000);
    expect(late).toBeGreaterThan(0);
    expect(late).toBeLessThan(2000);
    expect(JSON.parse(f.receiver.at('/chat-b')[0].body).embeds[0]).toMatchObject({ title: 'Monitor "backup heartbeat" is down', color: 0xcf222e });
    expect((await request(f.app).get(`/v1/monitors/${monitor.id}`).set(auth())).body.state).toBe('down');

    await ping();
    await waitFor(() => f.receiver.at('/webhook').length === 2 && f.receiver.at('/chat-b').length === 2, { what: 'the on_recovery notifications' });
    expect(JSON.parse(f.receiver.at('/webhook')[1].body)).toMatchObject({ event: 'monitor.recovered', monitor: { id: monitor.id } });
    expect(JSON.parse(f.receiver.at('/chat-b')[1].body).embeds[0]).toMatchObject({ title: 'Monitor "backup heartbeat" is up again', color: 0x2da44e });

    const deliveries = await waitFor(async () => {
      const d = await monitorDeliveries(monitor.id);
      return d.length === 4 && d.every((x) => x.status === 'sent') ? d : undefined;
    }, { what: 'the deliveries to be recorded sent' });
    expect(deliveries.map((d) => d.event).sort()).toEqual(['on_down', 'on_down', 'on_recovery', 'on_recovery']);
    expect(deliveries.every((d) => d.execution_id === null && d.kind === 'channel')).toBe(true);
    // Left alone it would go down again a second later, into the next test.
    await request(f.app).post(`/v1/monitors/${monitor.id}/pause`).set(auth()).expect(200);
  });

  it('reports each outage once', async () => {
    const hook = await aChannel(f.ctx.runtime, f.workspace.id, 'webhook', { url: `${f.receiver.url}/outages` });
    const monitor = await aMonitor(f.ctx.runtime, f.workspace.id, { expected_interval_sec: 1 });
    await aRule(f.ctx.runtime, f.workspace.id, { kind: 'monitor', id: monitor.id }, hook.id, 'on_down');
    const ping = () => request(f.app).post(`/v1/ping/${pingTokenOf(f.ctx.runtime, monitor)}`).expect(200);
    const downs = () => f.receiver.at('/outages').length;

    await ping();
    await waitFor(() => downs() === 1, { what: 'the first outage' });
    await ping();
    await waitFor(() => downs() === 2, { what: 'the second outage', timeoutMs: 20_000 });
    const deliveries = await waitFor(async () => {
      const d = await monitorDeliveries(monitor.id);
      return d.length === 2 && d.every((x) => x.status === 'sent') ? d : undefined;
    }, { what: 'both deliveries recorded' });
    expect(deliveries.map((d) => d.event)).toEqual(['on_down', 'on_down']);
  });

  it('says nothing about a paused monitor, pinged or not', async () => {
    const hook = await aChannel(f.ctx.runtime, f.workspace.id, 'webhook', { url: `${f.receiver.url}/paused` });
    const witnessHook = await aChannel(f.ctx.runtime, f.workspace.id, 'webhook', { url: `${f.receiver.url}/witness` });
    const paused = await aMonitor(f.ctx.runtime, f.workspace.id, { expected_interval_sec: 1 });
    const witness = await aMonitor(f.ctx.runtime, f.workspace.id, { expected_interval_sec: 1 });
    await aRule(f.ctx.runtime, f.workspace.id, { kind: 'monitor', id: paused.id }, hook.id, 'on_down');
    await aRule(f.ctx.runtime, f.workspace.id, { kind: 'monitor', id: witness.id }, witnessHook.id, 'on_down');
    await request(f.app).post(`/v1/monitors/${paused.id}/pause`).set(auth()).expect(200);
    // Both pinged now: the witness goes down a second later; the paused one must not.
    await Promise.all([paused, witness].map((m) => request(f.app).get(`/v1/ping/${pingTokenOf(f.ctx.runtime, m)}`).expect(200)));
    await waitFor(() => f.receiver.at('/witness').length === 1, { what: 'the witness to go down' });
    // The sweep that took the witness down saw the paused monitor too, in the same statement.
    expect((await request(f.app).get(`/v1/monitors/${paused.id}`).set(auth())).body).toMatchObject({ state: 'paused', last_ping_at: expect.any(String) });
    expect(f.receiver.at('/paused')).toEqual([]);
    expect(await monitorDeliveries(paused.id)).toEqual([]);
  });
});
