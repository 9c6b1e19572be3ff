import { listMonitorPings } from '../src/monitors/monitor-store.js';
import { PINGS_KEPT, PRUNE_EVERY, recordPing, type PingDetails } from '../src/monitors/record-ping.js';
import { resumeMonitor, pauseMonitor } from '../src/monitors/monitor-lifecycle.js';
import { updateMonitor } from '../src/monitors/save-monitor.js';
import { sweepMonitors } from '../src/monitors/sweep-monitors.js';
import { aMonitor, pingTokenOf, useWorkspace } from './factories.js';

// Cron schedules, run starts and max durations, and the ping history, driven with clocks of their
// own so "later" needs no waiting. Through the API, with real deliveries: apps/notifier/test/monitor-pings.test.ts.

const w = useWorkspace();
const rt = () => w.ctx.runtime;
const ms = (iso: string) => Date.parse(iso);
const sweep = (at: number) => sweepMonitors({ pool: rt().pool, clock: { now: () => new Date(at) } });
const row = (id: string) => rt().db.monitor.findUniqueOrThrow({ where: { id } });
const eventsOf = async (monitorId: string) => (await rt().db.event.findMany({ where: { monitorId }, orderBy: { id: 'asc' } })).map((e) => e.type);
const ping = (m: Awaited<ReturnType<typeof aMonitor>>, iso: string, details: Partial<PingDetails> = {}) => recordPing(rt(), pingTokenOf(rt(), m), new Date(iso), details);
const cronMonitor = (cron: string, fields: Record<string, unknown> = {}) => aMonitor(rt(), w.workspaceId, { expected_interval_sec: undefined, schedule: { cron }, ...fields });

describe('a monitor on a cron schedule', () => {
  it('expects the next fire after its last success and goes down when the grace after it passes', async () => {
    const m = await cronMonitor('0 3 * * *', { grace_sec: 600 });
    await ping(m, '2030-03-05T03:00:40.000Z');
    expect(await row(m.id)).toMatchObject({ state: 'up', nextExpectedAt: new Date('2030-03-06T03:00:00.000Z'), nextDueAt: new Date('2030-03-06T03:10:00.000Z') });
    expect(await sweep(ms('2030-03-06T03:10:00.000Z'))).toBe(0);
    expect(await sweep(ms('2030-03-06T03:10:00.001Z'))).toBe(1);
    expect(await row(m.id)).toMatchObject({ state: 'down', nextExpectedAt: null, nextDueAt: null });
    await ping(m, '2030-03-06T03:30:00.000Z');
    expect(await row(m.id)).toMatchObject({ state: 'up', nextExpectedAt: new Date('2030-03-07T03:00:00.000Z') });
    expect(await eventsOf(m.id)).toEqual(['monitor.down', 'monitor.recovered']);
  });

  it('moves the deadline when the schedule changes, and from interval to cron and back', async () => {
    const m = await aMonitor(rt(), w.workspaceId, { expected_interval_sec: 3_600, grace_sec: 60 });
    await ping(m, '2030-03-05T10:20:00.000Z');
    const clock = { now: () => new Date('2030-03-05T10:21:00.000Z') };
    const cron = await updateMonitor({ ...rt(), clock }, w.workspaceId, m.id, { schedule: { cron: '*/30 * * * *' } });
    expect(cron).toMatchObject({ expectedIntervalSec: null, scheduleCron: '*/30 * * * *', nextExpectedAt: new Date('2030-03-05T10:30:00.000Z'), nextDueAt: new Date('2030-03-05T10:31:00.000Z') });
    const back = await updateMonitor({ ...rt(), clock }, w.workspaceId, m.id, { expected_interval_sec: 120 });
    expect(back).toMatchObject({ expectedIntervalSec: 120, scheduleCron: null, nextExpectedAt: new Date('2030-03-05T10:22:00.000Z') });
  });

  it('restarts the window at the resume time', async () => {
    const m = await cronMonitor('0 * * * *');
    await ping(m, '2030-03-05T10:00:05.000Z');
    await pauseMonitor(rt(), w.workspaceId, m.id);
    expect(await row(m.id)).toMatchObject({ state: 'paused', nextExpectedAt: null, nextDueAt: null });
    const resumed = await resumeMonitor({ ...rt(), clock: { now: () => new Date('2030-03-05T13:30:00.000Z') } }, w.workspaceId, m.id);
    expect(resumed).toMatchObject({ state: 'up', nextExpectedAt: new Date('2030-03-05T14:00:00.000Z'), nextDueAt: new Date('2030-03-05T14:00:00.000Z') });
  });
});

describe('start, success and fail pings', () => {
  it('takes a new monitor up on a start, measures the run to its success, and keeps the window the success opened', async () => {
    const m = await aMonitor(rt(), w.workspaceId, { expected_interval_sec: 3_600 });
    await ping(m, '2030-04-01T00:00:00.000Z', { kind: 'start' });
    expect(await row(m.id)).toMatchObject({ state: 'up', runStartedAt: new Date('2030-04-01T00:00:00.000Z'), nextExpectedAt: new Date('2030-04-01T01:00:00.000Z') });
    await ping(m, '2030-04-01T00:02:03.456Z');
    expect(await row(m.id)).toMatchObject({ state: 'up', runStartedAt: null, lastDurationMs: 123_456, nextExpectedAt: new Date('2030-04-01T01:02:03.456Z') });
    // A start does not move the window: a run that keeps starting and never succeeds still goes down.
    await ping(m, '2030-04-01T01:00:00.000Z', { kind: 'start' });
    expect((await row(m.id)).nextDueAt).toEqual(new Date('2030-04-01T01:02:03.456Z'));
    expect(await eventsOf(m.id)).toEqual([]);
  });

  it('goes down when a started run outlasts max_duration_sec, and recovers with its duration on the success', async () => {
    const m = await aMonitor(rt(), w.workspaceId, { expected_interval_sec: 86_400, max_duration_sec: 60 });
    await ping(m, '2030-04-02T00:00:00.000Z');
    await ping(m, '2030-04-02T06:00:00.000Z', { kind: 'start' });
    expect((await row(m.id)).nextDueAt).toEqual(new Date('2030-04-02T06:01:00.000Z'));
    await sweep(ms('2030-04-02T06:01:00.000Z'));
    expect((await row(m.id)).state).toBe('up');
    await sweep(ms('2030-04-02T06:01:00.001Z'));
    expect((await row(m.id)).state).toBe('down');
    await ping(m, '2030-04-02T06:05:00.000Z', { kind: 'success', exitStatus: 0 });
    expect(await row(m.id)).toMatchObject({ state: 'up', lastDurationMs: 300_000, nextDueAt: new Date('2030-04-03T06:05:00.000Z') });
    expect(await eventsOf(m.id)).toEqual(['monitor.down', 'monitor.recovered']);
  });

  it('goes down at once on a fail, new or up, once per outage; a paused monitor only records it', async () => {
    const fresh = await aMonitor(rt(), w.workspaceId);
    await ping(fresh, '2030-04-03T00:00:00.000Z', { kind: 'fail', exitStatus: 2 });
    await ping(fresh, '2030-04-03T00:00:01.000Z', { kind: 'fail' });
    expect(await row(fresh.id)).toMatchObject({ state: 'down', nextDueAt: null, lastPingAt: new Date('2030-04-03T00:00:01.000Z') });
    expect(await eventsOf(fresh.id)).toEqual(['monitor.down']);
    const paused = await aMonitor(rt(), w.workspaceId);
    await pauseMonitor(rt(), w.workspaceId, paused.id);
    await ping(paused, '2030-04-03T00:00:00.000Z', { kind: 'fail' });
    expect(await row(paused.id)).toMatchObject({ state: 'paused', nextDueAt: null });
    expect(await eventsOf(paused.id)).toEqual([]);
  });
});

describe('the ping history', () => {
  it(`keeps the last ${PINGS_KEPT} pings, deleting the oldest in batches of ${PRUNE_EVERY}`, async () => {
    const m = await aMonitor(rt(), w.workspaceId, { expected_interval_sec: 3_600 });
    const t0 = ms('2030-05-01T00:00:00.000Z');
    const stored = async () => (await rt().db.monitorPing.count({ where: { monitorId: m.id } }));
    const counts: number[] = [];
    for (let i = 1; i <= 1_250; i++) {
      await recordPing(rt(), pingTokenOf(rt(), m), new Date(t0 + i * 1000), { kind: i % 2 ? 'start' : 'success', body: Buffer.from(`run ${i}`) });
      if (i % 50 === 0) counts.push(await stored());
    }
    // Never fewer than the last 1,000, never more than one batch over.
    expect(Math.max(...counts)).toBeLessThan(PINGS_KEPT + PRUNE_EVERY);
    expect(counts.filter((c, i) => (i + 1) * 50 >= PINGS_KEPT && c < PINGS_KEPT)).toEqual([]);
    expect(await stored()).toBe(1_050);
    const first = await listMonitorPings(rt(), w.workspaceId, m.id, { limit: '2' });
    expect(first.total).toBe(PINGS_KEPT);
    expect(first.data.map((p) => p.body_preview)).toEqual(['run 1250', 'run 1249']);
    expect(first.data[0]).toMatchObject({ kind: 'success', received_at: new Date(t0 + 1_250_000).toISOString(), duration_ms: 1000 });
    const last = await listMonitorPings(rt(), w.workspaceId, m.id, { limit: '100', offset: '999' });
    expect(last.data.map((p) => p.body_preview)).toEqual(['run 251']);
  });

  it('deletes a bounded batch per prune, whatever the history holds', async () => {
    const m = await aMonitor(rt(), w.workspaceId, { expected_interval_sec: 3_600 });
    // A history as it would be with a million pings: the next prune still deletes one batch.
    await rt().pool.query(
      `INSERT INTO monitor_pings (monitor_id, seq, kind, received_at) SELECT $1, s, 'success', now() FROM generate_series(999000, 999999) AS s`,
      [m.id],
    );
    await rt().pool.query('UPDATE monitors SET ping_count = 999999 WHERE id = $1', [m.id]);
    await recordPing(rt(), pingTokenOf(rt(), m), new Date());
    const { rows } = await rt().pool.query('SELECT min(seq)::int AS oldest, count(*)::int AS n FROM monitor_pings WHERE monitor_id = $1', [m.id]);
    expect(rows[0]).toEqual({ oldest: 999_001, n: PINGS_KEPT });
  });
});
