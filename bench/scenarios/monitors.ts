// monitors: M heartbeat monitors, all up; the notifier's CPU is measured while none is due (the
// sweep runs every 500 ms regardless), and the sweep statement is timed with EXPLAIN ANALYZE.
// Then K of them get the same deadline a few seconds ahead, each with an on_down rule to a webhook
// on the local target: each on_down must arrive exactly once, within 2 s of the deadline.
import { SWEEP_SQL } from '@cronsvc/core';
import { apiPost } from '../harness/api-client.js';
import { cpuWindow, ensureService, sleep, type BenchContext } from '../harness/context.js';
import { resetServiceData, sqlId, workspaceId } from '../harness/seed.js';
import { TARGETS } from '../lib/params.js';
import { summarize } from '../lib/stats.js';
import type { Figure } from '../lib/verdict.js';
import type { ScenarioResult } from './types.js';

const SCENARIO = 'monitors';

/** The sweep as the notifier runs it with nothing due, rolled back: its plan and time on Postgres. */
async function explainSweep(ctx: BenchContext): Promise<{ ms: number; plan: string }> {
  const client = await ctx.pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${SWEEP_SQL}`, [new Date().toISOString(), 1000]);
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    return { ms: Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? Number.NaN), plan };
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

export async function monitors(ctx: BenchContext): Promise<ScenarioResult> {
  const { monitors: m, goingDown: k, idleWindowMs } = ctx.params.monitors;
  const service = await ensureService(ctx);
  await resetServiceData(ctx.pool);
  await ctx.target.reset();
  const ws = await workspaceId(ctx.pool);
  const channel = await apiPost<{ id: string }>(ctx, '/v1/notification-channels', { name: 'bench on_down', type: 'webhook', config: { url: `${ctx.target.url}/down` } });

  ctx.log(`${SCENARIO}: seeding ${m} monitors`);
  // All up, pinged a minute ago, due one to two hours from now.
  await ctx.pool.query(
    `INSERT INTO monitors (id, workspace_id, name, expected_interval_sec, grace_sec, state, ping_token, ping_token_hash, last_ping_at, next_due_at, created_at, updated_at)
     SELECT ${sqlId('mon')}, $1, 'bench ' || i, 3600, 0, 'up', t.token, encode(sha256(convert_to(t.token, 'UTF8')), 'hex'),
            now() - interval '1 minute', now() + interval '1 hour' + i * interval '36 milliseconds', now(), now()
       FROM generate_series(1, $2::int) AS i, LATERAL (SELECT replace(gen_random_uuid()::text, '-', '') || i AS token) AS t`,
    [ws, m],
  );
  await ctx.pool.query('ANALYZE monitors');

  ctx.log(`${SCENARIO}: notifier CPU with ${m} monitors and none due, over ${idleWindowMs} ms`);
  const closeIdle = cpuWindow([service.notifier]);
  await sleep(idleWindowMs);
  const idle = closeIdle();
  const sweep = await explainSweep(ctx);

  // K of them due at the same instant, each with its on_down rule.
  const deadline = Math.ceil((Date.now() + 3_000) / 1000) * 1000;
  const { rows: picked } = await ctx.pool.query<{ id: string }>(
    `UPDATE monitors SET next_due_at = $1::timestamptz, last_ping_at = $1::timestamptz - interval '1 hour'
      WHERE id IN (SELECT id FROM monitors ORDER BY id LIMIT $2) RETURNING id`,
    [new Date(deadline).toISOString(), k],
  );
  await ctx.pool.query(
    `INSERT INTO notification_rules (id, workspace_id, channel_id, monitor_id, event, created_at, updated_at)
     SELECT ${sqlId('rul')}, $1, $2, id, 'on_down', now(), now() FROM unnest($3::text[]) AS id`,
    [ws, channel.id, picked.map((r) => r.id)],
  );
  if (Date.now() > deadline) ctx.log(`${SCENARIO}: warning: the deadline passed before the rules were in place`);
  ctx.log(`${SCENARIO}: ${k} monitors due at ${new Date(deadline).toISOString()}`);

  const closeBurst = cpuWindow([service.notifier]);
  const giveUp = deadline + 30_000;
  for (;;) {
    service.assertAlive();
    if ((await ctx.target.stats()).distinct >= k && Date.now() > deadline) break;
    if (Date.now() > giveUp) break;
    await sleep(200);
  }
  const burst = closeBurst();
  await sleep(1_000);

  const arrivals = (await ctx.target.arrivals()).filter((a) => a.executionId.startsWith('dlv_'));
  const { rows: deliveries } = await ctx.pool.query<{ id: string; monitor_id: string }>(`SELECT id, monitor_id FROM deliveries WHERE event = 'on_down'`);
  const monitorOf = new Map(deliveries.map((d) => [d.id, d.monitor_id]));
  const first = new Map<string, number>();
  let repeats = 0;
  for (const a of arrivals) {
    const monitor = monitorOf.get(a.executionId);
    if (!monitor) continue;
    if (first.has(monitor)) repeats++;
    else first.set(monitor, a.at);
  }
  // More than one delivery for a monitor means it was reported down twice.
  const perMonitor = new Map<string, number>();
  for (const d of deliveries) perMonitor.set(d.monitor_id, (perMonitor.get(d.monitor_id) ?? 0) + 1);
  const duplicates = repeats + [...perMonitor.values()].reduce((sum, c) => sum + c - 1, 0);
  const late = summarize([...first.values()].map((at) => at - deadline));
  const missing = k - first.size;
  const problems = missing > 0 ? [`${missing} of ${k} on_down notifications never arrived`] : [];

  const label = `${k.toLocaleString('en-US')} of ${m.toLocaleString('en-US')} down at once`;
  const figures: Figure[] = [
    { scenario: SCENARIO, name: `${m.toLocaleString('en-US')} monitors, none due: notifier CPU`, value: idle.processes.notifier ?? null, unit: '% of a core', note: `over ${idleWindowMs / 1000} s; sweep every 500 ms, relay polling every 100 ms` },
    { scenario: SCENARIO, name: `${m.toLocaleString('en-US')} monitors, none due: sweep statement`, value: Number.isFinite(sweep.ms) ? sweep.ms : null, unit: 'ms', note: 'EXPLAIN ANALYZE on Postgres, rolled back' },
    { scenario: SCENARIO, name: `${label}: on_down after deadline p50`, value: late?.p50 ?? null, unit: 'ms', problems },
    { scenario: SCENARIO, name: `${label}: on_down after deadline p99`, value: late?.p99 ?? null, unit: 'ms', problems },
    { scenario: SCENARIO, name: `${label}: on_down after deadline max`, value: late?.max ?? null, unit: 'ms', target: TARGETS.onDownLateMaxMs, problems, note: 'arrival at the receiver minus the deadline' },
    { scenario: SCENARIO, name: `${label}: missing`, value: missing, unit: '', target: TARGETS.zero },
    { scenario: SCENARIO, name: `${label}: reported more than once`, value: duplicates, unit: '', target: TARGETS.zero },
    { scenario: SCENARIO, name: `${label}: notifier CPU`, value: burst.processes.notifier ?? null, unit: '% of a core', note: `over ${Math.round(burst.windowMs / 100) / 10} s from 3 s before the deadline` },
  ];
  return {
    figures,
    parameters: { monitors: m, goingDown: k, idleWindowMs, deadline: new Date(deadline).toISOString() },
    details: { idle, burst, sweepPlan: sweep.plan, arrivals: arrivals.length, deliveries: deliveries.length, late },
  };
}
