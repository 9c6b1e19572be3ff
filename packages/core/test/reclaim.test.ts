import { claimAttempt, extendLease, type ClaimedExecution, type ClaimResult } from '../src/executions/claim-attempt.js';
import { newExecutionVariables } from '../src/executions/execution-variables.js';
import { reclaimExecutions } from '../src/executions/reclaim-executions.js';
import { recordAttempt, type AttemptRecord } from '../src/executions/record-attempt.js';
import { runNow } from '../src/executions/run-now.js';
import { newId } from '../src/ids/ids.js';
import { supervisedWorkers } from '../src/runtime/heartbeat.js';
import { aJob, useWorkspace } from './factories.js';
import type { TestContext } from './test-context.js';
import { waitFor } from './wait-for.js';

// Liveness-based reclaim (docs/adr/018-liveness-based-reclaim.md): a claim names its worker, and
// when that worker's heartbeat has been silent for EXECUTOR_DEAD_AFTER_MS on the database's clock,
// another executor ends its leases at once. The claim token still fences the old holder.

let ctx: TestContext;
let workspaceId: string;
let jobId: string;

const w = useWorkspace({ env: { EXECUTION_LEASE_MS: '30000' } });
beforeAll(async () => {
  ({ ctx, workspaceId } = w);
  jobId = (await aJob(ctx.runtime, workspaceId)).id;
});
// Each test's workers only: one left from an earlier test would go quiet and be taken over too.
afterEach(() => ctx.runtime.pool.query('DELETE FROM workers'));

const LEASE = 30_000;
const DEAD_AFTER = 3_000;
const WINDOW = 4_000;
// The executor asking: its own row is never taken over.
const SELF = newId('wrk');
const reclaim = () => reclaimExecutions(ctx.runtime.pool, { workerId: SELF, deadAfterMs: DEAD_AFTER, dueWithinMs: WINDOW, dueLimit: 10_000 });
const claimAs = (workerId: string, id: string): Promise<ClaimResult> =>
  claimAttempt({ db: ctx.runtime.db, pool: ctx.runtime.pool, workerId }, id, new Date(), LEASE, newExecutionVariables(new Date()));
const claimed = (result: ClaimResult): ClaimedExecution => {
  if (!('claimed' in result)) throw new Error(`not claimed: ${JSON.stringify(result)}`);
  return result.claimed;
};
const row = (id: string) => ctx.runtime.db.execution.findUniqueOrThrow({ where: { id } });
const queuedExecution = async () => (await runNow(ctx.runtime, workspaceId, jobId)).id;
const ids = (items: { executionId: string }[]) => items.map((i) => i.executionId);

/** A worker row whose last heartbeat was `agoMs` before now on the database's clock. */
async function executorBeatAgo(agoMs: number, kind = 'executor'): Promise<string> {
  const id = newId('wrk');
  await ctx.runtime.pool.query(
    `INSERT INTO workers (id, kind, hostname, pid, heartbeat_at) VALUES ($1, $2, 'test', 1, now() - $3 * interval '1 millisecond')`,
    [id, kind, agoMs],
  );
  return id;
}
const beatNow = (id: string) => ctx.runtime.pool.query('UPDATE workers SET heartbeat_at = now() WHERE id = $1', [id]);
const quiet = (id: string, agoMs: number) => ctx.runtime.pool.query(`UPDATE workers SET heartbeat_at = now() - $2 * interval '1 millisecond' WHERE id = $1`, [id, agoMs]);

const success: AttemptRecord = {
  verdict: { status: 'SUCCESS', errorClass: null, errorMessage: null, outcome: 'succeeded' },
  request: null,
  latencyMs: 1,
  statusCode: 200,
  preview: 'ok',
  headers: {},
  output: null,
  budgetWaitMs: 0,
};

it('a claim names the worker that made it', async () => {
  const worker = await executorBeatAgo(0);
  const id = await queuedExecution();
  claimed(await claimAs(worker, id));
  expect((await row(id)).claimedBy).toBe(worker);
});

it('ends the lease of a quiet executor at once; the next claim takes it and fences the old holder', async () => {
  const dead = await executorBeatAgo(0);
  const live = await executorBeatAgo(0);
  const [lost, kept] = [await queuedExecution(), await queuedExecution()];
  const old = claimed(await claimAs(dead, lost));
  claimed(await claimAs(live, kept));
  // Not yet: a second without a beat is not death.
  await quiet(dead, 1_000);
  expect((await reclaim()).workers).not.toContain(dead);
  expect(await claimAs(live, lost)).toHaveProperty('retryAt');

  await quiet(dead, DEAD_AFTER + 500);
  const reclaimed = await reclaim();
  expect(reclaimed.workers).toEqual([dead]);
  expect(reclaimed.running).toEqual([{ executionId: lost, attempt: 1, runAt: (await row(lost)).nextAttemptAt, workspaceId }]);
  expect(ids(reclaimed.due)).not.toContain(kept);
  expect((await row(kept)).lockedUntil!.getTime()).toBeGreaterThan(Date.now() + LEASE - 5_000);

  const taker = claimed(await claimAs(live, lost));
  expect(taker.claimToken).toBe(old.claimToken + 1);
  expect((await row(lost)).claimedBy).toBe(live);
  // The old holder, back from a stall, can neither renew nor record over the new one.
  expect(await extendLease(ctx.runtime.pool, lost, old.claimToken, LEASE)).toBe(false);
  const recordDeps = { pool: ctx.runtime.pool, clock: ctx.runtime.clock };
  expect(await recordAttempt(recordDeps, old, 1, new Date(), { ...success, preview: 'stale' })).toEqual({ recorded: false });
  expect(await recordAttempt(recordDeps, taker, 1, new Date(), { ...success, preview: 'fresh' })).toMatchObject({ recorded: true });
  const attempts = await ctx.runtime.db.attempt.findMany({ where: { executionId: lost } });
  expect(attempts.map((a) => a.bodyPreview)).toEqual(['fresh']);
});

it('takes over a dead executor once, and again only after it beat again and went quiet again', async () => {
  const worker = await executorBeatAgo(DEAD_AFTER + 500);
  expect((await reclaim()).workers).toEqual([worker]);
  expect((await reclaim()).workers).toEqual([]);
  await beatNow(worker);
  const id = await queuedExecution();
  claimed(await claimAs(worker, id));
  // Quiet again, for real: its last beat is newer than the takeover. A short threshold keeps the wait short.
  const shortly = () => reclaimExecutions(ctx.runtime.pool, { workerId: SELF, deadAfterMs: 300, dueWithinMs: WINDOW, dueLimit: 10_000 });
  expect((await shortly()).workers).toEqual([]);
  const again = await waitFor(async () => {
    const r = await shortly();
    return r.workers.length > 0 ? r : undefined;
  }, { timeoutMs: 5_000, intervalMs: 50, what: 'the executor to be taken over again' });
  expect(again.workers).toEqual([worker]);
  expect(ids(again.running)).toEqual([id]);
});

it('two executors looking at once: one takes the dead executor over', async () => {
  const worker = await executorBeatAgo(DEAD_AFTER + 500);
  const id = await queuedExecution();
  await ctx.runtime.pool.query(`UPDATE executions SET status = 'running', claimed_by = $2, locked_until = now() + interval '30 seconds' WHERE id = $1`, [id, worker]);
  const both = await Promise.all([reclaim(), reclaim()]);
  expect(both.map((r) => r.workers).flat()).toEqual([worker]);
  expect(both.map((r) => ids(r.running)).flat()).toEqual([id]);
});

it('lists the unclaimed executions due within the window, which a dead executor may have held', async () => {
  const soon = await queuedExecution();
  const later = await queuedExecution();
  const running = await queuedExecution();
  await ctx.runtime.pool.query(`UPDATE executions SET next_attempt_at = now() + interval '2 seconds' WHERE id = $1`, [soon]);
  await ctx.runtime.pool.query(`UPDATE executions SET next_attempt_at = now() + interval '1 minute' WHERE id = $1`, [later]);
  claimed(await claimAs(await executorBeatAgo(0), running));
  await executorBeatAgo(DEAD_AFTER + 500);
  const { due } = await reclaim();
  expect(ids(due)).toContain(soon);
  expect(ids(due)).not.toContain(later);
  expect(ids(due)).not.toContain(running);
  expect(due.find((d) => d.executionId === soon)).toMatchObject({ attempt: 1 });
});

it('never takes over the executor asking, whose own heartbeat may look quiet after the database was away', async () => {
  await ctx.runtime.pool.query(`INSERT INTO workers (id, kind, hostname, pid, heartbeat_at) VALUES ($1, 'executor', 'test', 1, now() - interval '10 seconds')`, [SELF]);
  const id = await queuedExecution();
  claimed(await claimAs(SELF, id));
  expect(await reclaim()).toEqual({ workers: [], running: [], due: [] });
  expect(await claimAs(newId('wrk'), id)).toHaveProperty('retryAt');
});

it('leaves quiet schedulers and notifiers alone: they claim no executions', async () => {
  const scheduler = await executorBeatAgo(DEAD_AFTER + 500, 'scheduler');
  expect((await reclaim()).workers).not.toContain(scheduler);
});

it('takes over at once an executor its supervisor saw exit, and drops its row', async () => {
  const supervisor = `sup-${newId('wrk')}`;
  const worker = await executorBeatAgo(0);
  await ctx.runtime.pool.query('UPDATE workers SET supervisor = $2, pid = 4242 WHERE id = $1', [worker, supervisor]);
  const id = await queuedExecution();
  claimed(await claimAs(worker, id));
  const workers = supervisedWorkers(ctx.config.databaseUrl, supervisor);
  await workers.forget(4242);
  await workers.close();
  const reclaimed = await reclaim();
  expect(reclaimed.workers).toEqual([worker]);
  expect(ids(reclaimed.running)).toEqual([id]);
  expect((await ctx.runtime.pool.query('SELECT 1 FROM workers WHERE id = $1', [worker])).rows).toEqual([]);
});
