import { recordPing } from '../src/monitors/record-ping.js';
import { pauseMonitor } from '../src/monitors/monitor-lifecycle.js';
import { SWEEP_SQL, sweepMonitors } from '../src/monitors/sweep-monitors.js';
import { aMonitor, pingTokenOf, useWorkspace } from './factories.js';

// Down detection is one statement over the next_due_at index; these drive it with a clock of
// their own, so "later" needs no waiting.

const w = useWorkspace();
const at = (ms: number) => ({ pool: w.ctx.runtime.pool, clock: { now: () => new Date(ms) } });
const sweep = (ms: number) => sweepMonitors(at(ms));
const eventsOf = (monitorId: string) => w.ctx.runtime.db.event.findMany({ where: { monitorId }, orderBy: { id: 'asc' } });
const stateOf = async (id: string) => (await w.ctx.runtime.db.monitor.findUniqueOrThrow({ where: { id } })).state;

it('takes a monitor down only after last ping + interval + grace, once per outage, and back up on the next ping', async () => {
  const m = await aMonitor(w.ctx.runtime, w.workspaceId, { name: 'backup', expected_interval_sec: 60, grace_sec: 30 });
  const t0 = Date.parse('2030-01-01T00:00:00.000Z');
  expect(await recordPing(w.ctx.runtime, pingTokenOf(w.ctx.runtime, m), new Date(t0))).toBe(true);
  expect(await sweep(t0 + 90_000)).toBe(0);
  expect(await stateOf(m.id)).toBe('up');
  expect(await sweep(t0 + 90_001)).toBe(1);
  expect(await stateOf(m.id)).toBe('down');
  expect(await sweep(t0 + 500_000)).toBe(0);
  const [down] = await eventsOf(m.id);
  expect(down).toMatchObject({ workspaceId: w.workspaceId, type: 'monitor.down', executionId: null, monitorId: m.id });
  expect(down.payload).toEqual({
    event: 'monitor.down',
    monitor: { id: m.id, name: 'backup', expected_interval_sec: 60, last_ping_at: '2030-01-01T00:00:00.000Z' },
    timestamp: '2030-01-01T00:01:30.001Z',
  });

  await recordPing(w.ctx.runtime, pingTokenOf(w.ctx.runtime, m), new Date(t0 + 600_000));
  await recordPing(w.ctx.runtime, pingTokenOf(w.ctx.runtime, m), new Date(t0 + 610_000));
  const events = await eventsOf(m.id);
  expect(events.map((e) => e.type)).toEqual(['monitor.down', 'monitor.recovered']);
  expect(events[1].payload).toEqual({
    event: 'monitor.recovered',
    monitor: { id: m.id, name: 'backup', expected_interval_sec: 60, last_ping_at: '2030-01-01T00:10:00.000Z' },
    timestamp: '2030-01-01T00:10:00.000Z',
  });
  expect(await stateOf(m.id)).toBe('up');
  // A second outage is reported again.
  expect(await sweep(t0 + 610_000 + 90_001)).toBe(1);
  expect((await eventsOf(m.id)).map((e) => e.type)).toEqual(['monitor.down', 'monitor.recovered', 'monitor.down']);
});

it('never takes down a monitor that was never pinged or is paused', async () => {
  const fresh = await aMonitor(w.ctx.runtime, w.workspaceId, { expected_interval_sec: 1 });
  const paused = await aMonitor(w.ctx.runtime, w.workspaceId, { expected_interval_sec: 1 });
  await recordPing(w.ctx.runtime, pingTokenOf(w.ctx.runtime, paused), new Date());
  await pauseMonitor(w.ctx.runtime, w.workspaceId, paused.id);
  expect(await sweep(Date.now() + 86_400_000 * 365)).toBe(0);
  expect([await stateOf(fresh.id), await stateOf(paused.id)]).toEqual(['new', 'paused']);
  expect([...(await eventsOf(fresh.id)), ...(await eventsOf(paused.id))]).toEqual([]);
});

it('reports each of many overdue monitors once when several sweeps run at the same time', async () => {
  const n = 1_200;
  const t0 = Date.parse('2031-01-01T00:00:00.000Z');
  await w.ctx.runtime.pool.query(
    `INSERT INTO monitors (id, workspace_id, name, expected_interval_sec, grace_sec, state, ping_token, ping_token_hash, last_ping_at, next_due_at, updated_at)
     SELECT 'mon_many_' || i, $1, 'many ' || i, 60, 0, 'up', 'tok_many_' || i, 'hash_many_' || i, $2::timestamptz, $2::timestamptz + interval '60 seconds', now()
       FROM generate_series(1, $3::int) AS i`,
    [w.workspaceId, new Date(t0).toISOString(), n],
  );
  const counts = await Promise.all([1, 2, 3, 4].map(() => sweepMonitors(at(t0 + 61_000), { batchSize: 250 })));
  expect(counts.reduce((a, b) => a + b, 0)).toBe(n);
  const { rows } = await w.ctx.runtime.pool.query(`SELECT count(*)::int AS events, count(DISTINCT monitor_id)::int AS monitors FROM events WHERE monitor_id LIKE 'mon_many_%'`);
  expect(rows[0]).toEqual({ events: n, monitors: n });
});

it('finds due monitors through the next_due_at index, not by reading every monitor', async () => {
  await w.ctx.runtime.pool.query(
    `INSERT INTO monitors (id, workspace_id, name, expected_interval_sec, grace_sec, state, ping_token, ping_token_hash, last_ping_at, next_due_at, updated_at)
     SELECT 'mon_idle_' || i, $1, 'idle ' || i, 3600, 0, 'up', 'tok_idle_' || i, 'hash_idle_' || i, now(), now() + interval '1 hour', now()
       FROM generate_series(1, 50000) AS i`,
    [w.workspaceId],
  );
  await w.ctx.runtime.pool.query('ANALYZE monitors');
  const { rows } = await w.ctx.runtime.pool.query(`EXPLAIN ${SWEEP_SQL}`, [new Date().toISOString(), 1000]);
  const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
  expect(plan).toContain('monitors_next_due_at_idx');
  expect(plan).not.toMatch(/Seq Scan/);
});

it('adds the stretch a state held to the days it spans when the sweep ends it, keeping only the last 91 days', async () => {
  const m = await aMonitor(w.ctx.runtime, w.workspaceId, { expected_interval_sec: 86_400 });
  const day = 86_400_000;
  // In the past: the other tests' monitors are not due then, so the sweep takes only this one.
  const t0 = Date.parse('2020-01-01T00:00:00.000Z');
  // Up for 200 days and 6 hours before the sweep takes it down.
  await recordPing(w.ctx.runtime, pingTokenOf(w.ctx.runtime, m), new Date(t0 - 200 * day));
  expect(await sweep(t0 + 6 * 3_600_000)).toBe(1);
  const { rows } = await w.ctx.runtime.pool.query<{ day: Date; up_ms: string; down_ms: string }>(
    'SELECT day, up_ms, down_ms FROM monitor_state_days WHERE monitor_id = $1 ORDER BY day',
    [m.id],
  );
  expect(rows).toHaveLength(92);
  expect(rows[0].day.toISOString()).toBe(new Date(t0 - 91 * day).toISOString());
  expect(rows.slice(1, -1).every((r) => r.up_ms === String(day) && r.down_ms === '0')).toBe(true);
  expect(rows[rows.length - 1]).toMatchObject({ day: new Date(t0), up_ms: String(6 * 3_600_000), down_ms: '0' });
  const row = await w.ctx.runtime.db.monitor.findUniqueOrThrow({ where: { id: m.id } });
  expect([row.state, row.stateSince.toISOString()]).toEqual(['down', new Date(t0 + 6 * 3_600_000).toISOString()]);
});
