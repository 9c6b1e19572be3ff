import request from 'supertest';
import { recordPing, sweepMonitors } from '@cronsvc/core';
import { aMonitorBody } from '@cronsvc/core/testing';
import { useApiApp } from './api-app.js';

// A monitor on a status page, through HTTP: its 90 daily bars and uptime come from its state
// history (docs/MONITORS.md, "State history"), which every change of state keeps: a ping, the
// down sweep, pause and resume. The pings and the sweep are driven with clocks of their own, days
// back; pause and resume go through the API now.

const api = useApiApp();
let auth: { Authorization: string };
beforeAll(async () => {
  ({ auth } = await api.ctx.workspace());
});

const H = 3_600_000;
/** The start of the UTC day `n` days before today. */
const day = (n: number) => Math.floor(Date.now() / (24 * H)) * 24 * H - n * 24 * H;
const post = (path: string, body?: object) => request(api.app).post(path).set(auth).send(body);
const publicJson = async (url: string) => (await request(api.app).get(new URL(url).pathname).set('Accept', 'application/json').expect(200)).body;

it("draws a monitor's 90 days from its state history: a day with time down is down, uptime is time up over time up or down", async () => {
  const monitor = (await post('/v1/monitors', aMonitorBody({ name: 'Backups', expected_interval_sec: 86_400 })).expect(201)).body;
  const token = monitor.ping_url.split('/').pop()!;
  const runtime = api.ctx.runtime;
  // Up from 10 days ago 06:00; the down sweep takes it down 8 days ago at 00:00; a success brings
  // it back 6 days ago at 12:00; paused through the API now.
  expect(await recordPing(runtime, token, new Date(day(10) + 6 * H))).toBe(true);
  expect(await sweepMonitors({ pool: runtime.pool, clock: { now: () => new Date(day(8)) } })).toBe(1);
  expect(await recordPing(runtime, token, new Date(day(6) + 12 * H))).toBe(true);
  const paused = (await post(`/v1/monitors/${monitor.id}/pause`).expect(200)).body;
  const page = (await post('/v1/status-pages', { name: 'Ops', monitor_ids: [monitor.id] }).expect(201)).body;

  const [item] = (await publicJson(page.public_url)).items;
  expect(item.state).toBe('paused');
  expect(item.days).toHaveLength(90);
  const states = item.days.map((d: { state: string }) => d.state);
  expect(states.slice(0, 79).every((s: string) => s === 'none')).toBe(true);
  // Days 10 and 9 ago up; 8, 7 and 6 ago down (6 ago down until noon); 5 ago to today up.
  expect(states.slice(79)).toEqual(['up', 'up', 'down', 'down', 'down', 'up', 'up', 'up', 'up', 'up', 'up']);
  expect(item.days[81].date).toBe(new Date(day(8)).toISOString().slice(0, 10));
  const upMs = (18 + 24 + 12 + 5 * 24) * H + (Date.parse(paused.updated_at) - day(0));
  const downMs = (24 + 24 + 12) * H;
  expect(item.uptime_90d).toBeCloseTo(upMs / (upMs + downMs), 6);

  // Resumed, it is up again from now: today stays up, and the uptime counts the new stretch too.
  await post(`/v1/monitors/${monitor.id}/resume`).expect(200);
  const again = (await publicJson(page.public_url)).items[0];
  expect(again.state).toBe('up');
  expect(again.days[89].state).toBe('up');
  expect(again.uptime_90d).toBeGreaterThanOrEqual(item.uptime_90d);
  const html = (await request(api.app).get(new URL(page.public_url).pathname).expect(200)).text;
  // (174 h + today so far) over (234 h + today so far): 74.35% to 76.74%.
  expect(html).toMatch(/>7[4-6]\.\d\d% uptime</);
  expect(html).toContain('Backups, last 90 days: 11 with data, 3 with failures');
});

it('shows a monitor that was never pinged, or only paused, with no bars and no uptime', async () => {
  const fresh = (await post('/v1/monitors', aMonitorBody({ name: 'Fresh' })).expect(201)).body;
  const paused = (await post('/v1/monitors', aMonitorBody({ name: 'Shelved' })).expect(201)).body;
  await post(`/v1/monitors/${paused.id}/pause`).expect(200);
  const page = (await post('/v1/status-pages', { name: 'Quiet', monitor_ids: [fresh.id, paused.id] }).expect(201)).body;
  const items = (await publicJson(page.public_url)).items;
  expect(items.map((i: { name: string; state: string; uptime_90d: number | null }) => [i.name, i.state, i.uptime_90d])).toEqual([
    ['Fresh', 'new', null],
    ['Shelved', 'paused', null],
  ]);
  for (const item of items) expect(item.days.every((d: { state: string }) => d.state === 'none')).toBe(true);
});
