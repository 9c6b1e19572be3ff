import pg from 'pg';
import { claimAttempt, type ClaimedExecution } from '../src/executions/claim-attempt.js';
import { recordAttempt, type AttemptRecord } from '../src/executions/record-attempt.js';
import { newExecutionVariables } from '../src/executions/execution-variables.js';
import { runNow } from '../src/executions/run-now.js';
import { insertEvent } from '../src/notifications/insert-event.js';
import { relayEvents } from '../src/notifications/relay-events.js';
import { snoozeRule, unsnoozeRule } from '../src/notifications/snooze.js';
import { aChannel, aJob, aMonitor, aRule, useWorkspace } from './factories.js';

// A job's streak of failures is counted by the statement that records each execution's end, in
// finish order, under the streak row's lock; the relay decides each rule's deliveries from it.

// A second pool: a second executor, whose recordings are statements (transactions) of their own.
// Ended before the workspace's database is dropped (hooks run in the order they are registered).
let other: pg.Pool;
afterAll(() => other.end());
const w = useWorkspace();
let channelId: string;

beforeAll(async () => {
  channelId = (await aChannel(w.ctx.runtime, w.workspaceId, 'webhook', { url: 'https://hooks.example.com/in' })).id;
  other = new pg.Pool({ connectionString: w.ctx.config.databaseUrl, max: 2 });
});

const verdicts: Record<'ok' | 'fail', AttemptRecord> = {
  ok: { verdict: { status: 'SUCCESS', errorClass: null, errorMessage: null, outcome: 'succeeded' }, request: null, latencyMs: 1, statusCode: 200, preview: 'ok', headers: {}, output: null, budgetWaitMs: 0 },
  fail: { verdict: { status: 'HTTP_ERROR', errorClass: 'HTTP_5XX', errorMessage: 'status 500', outcome: 'failed' }, request: null, latencyMs: 1, statusCode: 500, preview: 'no', headers: {}, output: null, budgetWaitMs: 0 },
};

async function claimed(jobId: string): Promise<ClaimedExecution> {
  const exe = await runNow(w.ctx.runtime, w.workspaceId, jobId);
  const now = new Date();
  const r = await claimAttempt(w.ctx.runtime, exe.id, now, 30_000, newExecutionVariables(now));
  if (!('claimed' in r)) throw new Error('not claimed');
  return r.claimed;
}

/** Runs executions of the job one after another with these outcomes. */
async function finish(jobId: string, outcomes: ('ok' | 'fail')[], pool: pg.Pool = w.ctx.runtime.pool): Promise<string[]> {
  const ids: string[] = [];
  for (const outcome of outcomes) {
    const exe = await claimed(jobId);
    await recordAttempt({ clock: w.ctx.runtime.clock, pool }, exe, 1, new Date(), verdicts[outcome]);
    ids.push(exe.id);
  }
  return ids;
}

const streakOf = async (jobId: string) => w.ctx.runtime.db.jobStreak.findUnique({ where: { jobId } });
const eventsOf = async (ids: string[]) =>
  (await w.ctx.runtime.db.event.findMany({ where: { executionId: { in: ids } } })).map((e) => ({ id: e.executionId, type: e.type, failures: e.streakFailures, epoch: Number(e.streakEpoch) }));
const deliveriesOf = async (jobId: string) =>
  w.ctx.runtime.db.delivery.findMany({ where: { execution: { jobId }, kind: 'channel' }, orderBy: { createdAt: 'asc' }, include: { execution: { select: { id: true } } } });

it('counts consecutive failures in finish order; a success ends the streak and says how long it was', async () => {
  const job = await aJob(w.ctx.runtime, w.workspaceId);
  await aRule(w.ctx.runtime, w.workspaceId, { kind: 'job', id: job.id }, channelId, 'on_failure');
  const ids = await finish(job.id, ['fail', 'fail', 'ok', 'ok', 'fail']);
  const byId = new Map((await eventsOf(ids)).map((e) => [e.id, e]));
  expect(ids.map((id) => byId.get(id))).toEqual([
    { id: ids[0], type: 'execution.failed', failures: 1, epoch: 0 },
    { id: ids[1], type: 'execution.failed', failures: 2, epoch: 0 },
    { id: ids[2], type: 'execution.succeeded', failures: 2, epoch: 0 },
    // A success that ended no streak: its epoch means nothing.
    { id: ids[3], type: 'execution.succeeded', failures: 0, epoch: expect.any(Number) },
    { id: ids[4], type: 'execution.failed', failures: 1, epoch: 1 },
  ]);
  expect(await streakOf(job.id)).toMatchObject({ failures: 1, epoch: 1n });
});

it('counts executions of one job recorded in one batch statement in the order they were added', async () => {
  const job = await aJob(w.ctx.runtime, w.workspaceId);
  await aRule(w.ctx.runtime, w.workspaceId, { kind: 'job', id: job.id }, channelId, 'on_failure');
  await finish(job.id, ['fail']);
  const exes = await Promise.all(['fail', 'ok', 'fail', 'fail'].map(() => claimed(job.id)));
  const outcomes = ['fail', 'ok', 'fail', 'fail'] as const;
  // Added in the same turn of the event loop: one batch.
  await Promise.all(exes.map((e, i) => recordAttempt(w.ctx.runtime, e, 1, new Date(), verdicts[outcomes[i]])));
  const byId = new Map((await eventsOf(exes.map((e) => e.id))).map((e) => [e.id, e]));
  expect(exes.map((e) => byId.get(e.id)).map((e) => [e?.failures, e?.epoch])).toEqual([[2, 0], [2, 0], [1, 1], [2, 1]]);
  expect(await streakOf(job.id)).toMatchObject({ failures: 2, epoch: 1n });
});

it('does not count the executions of a job without an on_failure or on_recovery rule', async () => {
  const job = await aJob(w.ctx.runtime, w.workspaceId);
  await aRule(w.ctx.runtime, w.workspaceId, { kind: 'job', id: job.id }, channelId, 'on_success');
  await finish(job.id, ['fail', 'fail']);
  expect(await streakOf(job.id)).toBeNull();
});

it('two executions of one job finishing at once on two executors: exactly one alerts the second failure, and the recovery follows it', async () => {
  const job = await aJob(w.ctx.runtime, w.workspaceId);
  const owner = { kind: 'job' as const, id: job.id };
  const failure = await aRule(w.ctx.runtime, w.workspaceId, owner, channelId, 'on_failure', { after_consecutive_failures: 2, realert_after_minutes: null });
  const recovery = await aRule(w.ctx.runtime, w.workspaceId, owner, channelId, 'on_recovery');
  for (let round = 0; round < 5; round++) {
    const [a, b] = await Promise.all([claimed(job.id), claimed(job.id)]);
    await Promise.all([
      recordAttempt({ clock: w.ctx.runtime.clock, pool: w.ctx.runtime.pool }, a, 1, new Date(), verdicts.fail),
      recordAttempt({ clock: w.ctx.runtime.clock, pool: other }, b, 1, new Date(), verdicts.fail),
    ]);
    const failures = (await eventsOf([a.id, b.id])).map((e) => e.failures).sort();
    expect(failures).toEqual([1, 2]);
    // Two relays at once, one event each.
    await Promise.all([relayEvents(w.ctx.runtime, { batchSize: 1, maxBatches: 1 }), relayEvents(w.ctx.runtime, { batchSize: 1, maxBatches: 1 })]);
    await relayEvents(w.ctx.runtime);
    await finish(job.id, ['ok']);
    await relayEvents(w.ctx.runtime);
  }
  const deliveries = await deliveriesOf(job.id);
  expect(deliveries.map((d) => d.event)).toEqual(Array.from({ length: 5 }, () => ['on_failure', 'on_recovery']).flat());
  // Each round holds back its other failure (before or after the alert, as the relays went).
  const heldBack = deliveries.filter((d) => d.event === 'on_failure').map((d) => (d.payload as { held_back: number }).held_back);
  const stillHeld = (await w.ctx.runtime.db.notificationRule.findUniqueOrThrow({ where: { id: failure.id } })).heldBack;
  expect(heldBack.reduce((a, b) => a + b, 0) + stillHeld).toBe(5);
  expect(deliveries.find((d) => d.event === 'on_recovery')?.payload).toMatchObject({ event: 'execution.recovered', consecutive_failures: 2, held_back: 0 });
  const rule = await w.ctx.runtime.db.notificationRule.findUniqueOrThrow({ where: { id: recovery.id } });
  expect(rule.lastDeliveredAt).not.toBeNull();
});

it('no recovery message without an earlier failure message', async () => {
  const job = await aJob(w.ctx.runtime, w.workspaceId);
  const owner = { kind: 'job' as const, id: job.id };
  await aRule(w.ctx.runtime, w.workspaceId, owner, channelId, 'on_failure', { after_consecutive_failures: 3 });
  await aRule(w.ctx.runtime, w.workspaceId, owner, channelId, 'on_recovery');
  await finish(job.id, ['fail', 'fail', 'ok', 'fail', 'fail', 'fail', 'fail', 'ok', 'ok']);
  await relayEvents(w.ctx.runtime);
  const deliveries = await deliveriesOf(job.id);
  expect(deliveries.map((d) => [d.event, (d.payload as { held_back: number }).held_back])).toEqual([
    ['on_failure', 4],
    ['on_failure', 0],
    ['on_recovery', 0],
  ]);
  expect((deliveries[0].payload as { snooze_url: string }).snooze_url).toMatch(/^http.*\/v1\/snooze\/[A-Za-z0-9_-]{24}$/);
});

it('a snoozed rule of a monitor, or a job’s on_missed rule, holds its events back and says so in the first delivery after', async () => {
  const monitor = await aMonitor(w.ctx.runtime, w.workspaceId, { name: 'backup' });
  const job = await aJob(w.ctx.runtime, w.workspaceId);
  const down = await aRule(w.ctx.runtime, w.workspaceId, { kind: 'monitor', id: monitor.id }, channelId, 'on_down');
  const missed = await aRule(w.ctx.runtime, w.workspaceId, { kind: 'job', id: job.id }, channelId, 'on_missed');
  const downPayload = { event: 'monitor.down', monitor: { id: monitor.id, name: 'backup', expected_interval_sec: 60, last_ping_at: null }, timestamp: '2030-01-01T00:00:00.000Z' };
  const missedPayload = { event: 'fire.missed', job: { id: job.id, name: job.name }, fires: [{ scheduled_for: '2030-01-01T00:00:00.000Z', outcome: 'missed', reason: null }], timestamp: '2030-01-01T00:00:00.000Z' };
  const emit = async () => {
    await w.ctx.runtime.db.$transaction(async (tx) => {
      await insertEvent(tx, { workspaceId: w.workspaceId, type: 'monitor.down', monitorId: monitor.id, payload: downPayload }, new Date());
      await tx.$executeRawUnsafe(`INSERT INTO events (workspace_id, type, job_id, payload, created_at) VALUES ($1, 'fire.missed', $2, $3::jsonb, now())`, w.workspaceId, job.id, JSON.stringify(missedPayload));
    });
    await relayEvents(w.ctx.runtime);
  };
  const sent = async () => w.ctx.runtime.db.delivery.findMany({ where: { ruleId: { in: [down.id, missed.id] } }, orderBy: { createdAt: 'asc' } });
  for (const rule of [down, missed]) await snoozeRule(w.ctx.runtime, w.workspaceId, rule.id, { minutes: 30 });
  await emit();
  await emit();
  expect(await sent()).toEqual([]);
  for (const rule of [down, missed]) await unsnoozeRule(w.ctx.runtime, w.workspaceId, rule.id);
  await emit();
  const deliveries = await sent();
  expect(deliveries.map((d) => [d.event, (d.payload as { held_back: number }).held_back]).sort()).toEqual([['on_down', 2], ['on_missed', 2]]);
  expect((deliveries.find((d) => d.event === 'on_down')?.payload as { snooze_url?: string }).snooze_url).toMatch(/\/v1\/snooze\//);
  expect((deliveries.find((d) => d.event === 'on_missed')?.payload as { snooze_url?: string }).snooze_url).toBeUndefined();
});
