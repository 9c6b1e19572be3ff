import { claimAttempt, extendLease, type ClaimedExecution, type ClaimResult } from '../src/executions/claim-attempt.js';
import { parkExecution } from '../src/executions/park-execution.js';
import { newExecutionVariables } from '../src/executions/execution-variables.js';
import { reconcileQueue } from '../src/executions/reconcile-queue.js';
import { recordAttempt, type AttemptRecord } from '../src/executions/record-attempt.js';
import { runNow } from '../src/executions/run-now.js';
import type { Queues } from '../src/queues/queues.js';
import { aJob, useWorkspace } from './factories.js';
import type { TestContext } from './test-context.js';

// Leases are decided on the database's clock, and a claim token fences a worker that lost its
// execution: clocks that disagree, or a worker that stalls, cannot take an execution from its
// holder or give it back to themselves.

let ctx: TestContext;
let workspaceId: string;
let jobId: string;

const w = useWorkspace({ env: { EXECUTION_LEASE_MS: '30000' } });
beforeAll(async () => {
  ({ ctx, workspaceId } = w);
  jobId = (await aJob(ctx.runtime, workspaceId)).id;
});

const HOUR = 3_600_000;
const LEASE = 30_000;
const shifted = (ms: number) => new Date(Date.now() + ms);
const deps = () => ({ db: ctx.runtime.db, pool: ctx.runtime.pool });
const claim = (id: string, now: Date, leaseMs = LEASE): Promise<ClaimResult> => claimAttempt(deps(), id, now, leaseMs, newExecutionVariables(now));
const claimed = (result: ClaimResult): ClaimedExecution => {
  if (!('claimed' in result)) throw new Error(`not claimed: ${JSON.stringify(result)}`);
  return result.claimed;
};
const row = (id: string) => ctx.runtime.db.execution.findUniqueOrThrow({ where: { id } });
const queuedExecution = async () => (await runNow(ctx.runtime, workspaceId, jobId)).id;

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

describe('a worker whose clock is skewed', () => {
  it('an hour ahead, cannot take over an execution another worker holds', async () => {
    const id = await queuedExecution();
    claimed(await claim(id, new Date()));
    const skewed = shifted(HOUR);
    const answer = await claim(id, skewed);
    expect(answer).toHaveProperty('retryAt');
    // "Not yet" comes on the asker's own clock: about a lease from its now.
    const wait = (answer as { retryAt: Date }).retryAt.getTime() - skewed.getTime();
    expect(wait).toBeGreaterThan(LEASE - 5_000);
    expect(wait).toBeLessThanOrEqual(LEASE + 1);
  });

  it('an hour behind, takes a lease that others respect for the full lease', async () => {
    const id = await queuedExecution();
    const lagging = claimed(await claim(id, shifted(-HOUR)));
    const { lockedUntil } = await row(id);
    expect(lockedUntil!.getTime()).toBeGreaterThan(Date.now() + LEASE - 5_000);
    expect(await claim(id, new Date())).toHaveProperty('retryAt');
    expect(lagging.claimToken).toBe(1);
  });

  it('an hour ahead, does not start an execution before it is due', async () => {
    const id = await queuedExecution();
    await ctx.runtime.db.execution.update({ where: { id }, data: { nextAttemptAt: shifted(60_000) } });
    const early = shifted(HOUR);
    const answer = await claim(id, early);
    expect(answer).toHaveProperty('retryAt');
    const wait = (answer as { retryAt: Date }).retryAt.getTime() - early.getTime();
    expect(wait).toBeGreaterThan(50_000);
  });

  it('an hour ahead, sets a retry due after its backoff on the database clock, not an hour late', async () => {
    const id = await queuedExecution();
    const worker = claimed(await claim(id, new Date()));
    const retry: AttemptRecord = { ...success, verdict: { status: 'TIMEOUT', errorClass: 'TIMEOUT', errorMessage: 'slow', outcome: 'retry', retryAt: new Date(Date.now() + 250) } };
    expect(await recordAttempt({ pool: ctx.runtime.pool, clock: { now: () => shifted(HOUR) } }, worker, 1, new Date(), retry)).toMatchObject({ recorded: true });
    expect((await row(id)).nextAttemptAt.getTime()).toBeLessThan(Date.now() + 5_000);
  });
});

describe('a worker that lost its execution', () => {
  it('cannot renew the lease once another worker has claimed it; the holder can', async () => {
    const id = await queuedExecution();
    const first = claimed(await claim(id, new Date(), 1_000));
    await ctx.runtime.db.$executeRaw`UPDATE executions SET locked_until = now() - interval '1 second' WHERE id = ${id}`;
    const second = claimed(await claim(id, new Date()));
    expect(second.claimToken).toBe(first.claimToken + 1);
    const held = (await row(id)).lockedUntil!.getTime();
    expect(await extendLease(ctx.runtime.pool, id, first.claimToken, 5_000)).toBe(false);
    expect((await row(id)).lockedUntil!.getTime()).toBe(held);
    expect(await extendLease(ctx.runtime.pool, id, second.claimToken, 60_000)).toBe(true);
    expect((await row(id)).lockedUntil!.getTime()).toBeGreaterThan(held);
  });

  it('cannot record its attempt over the new holder, which records its own', async () => {
    const id = await queuedExecution();
    const first = claimed(await claim(id, new Date(), 1_000));
    await ctx.runtime.db.$executeRaw`UPDATE executions SET locked_until = now() - interval '1 second' WHERE id = ${id}`;
    const second = claimed(await claim(id, new Date()));
    const recordDeps = { pool: ctx.runtime.pool, clock: ctx.runtime.clock };
    expect(await recordAttempt(recordDeps, first, 1, new Date(), { ...success, preview: 'stale' })).toEqual({ recorded: false });
    expect(await recordAttempt(recordDeps, second, 1, new Date(), { ...success, preview: 'fresh' })).toMatchObject({ recorded: true });
    const attempts = await ctx.runtime.db.attempt.findMany({ where: { executionId: id } });
    expect(attempts.map((a) => a.bodyPreview)).toEqual(['fresh']);
  });

  it('can still record when its lease ran out but nobody took the execution over', async () => {
    const id = await queuedExecution();
    const worker = claimed(await claim(id, new Date(), 1_000));
    await ctx.runtime.db.$executeRaw`UPDATE executions SET locked_until = now() - interval '1 second' WHERE id = ${id}`;
    expect(await recordAttempt({ pool: ctx.runtime.pool, clock: ctx.runtime.clock }, worker, 1, new Date(), success)).toMatchObject({ recorded: true });
  });
});

describe('other lease decisions on the database clock', () => {
  it('the reconciler of a scheduler whose clock is ahead leaves a live lease alone', async () => {
    const id = await queuedExecution();
    claimed(await claim(id, new Date()));
    const queued: string[] = [];
    const queues = { ...ctx.runtime.queues, enqueueExecutions: async (items: { executionId: string }[]) => void queued.push(...items.map((i) => i.executionId)) } as Queues;
    await reconcileQueue({ ...ctx.runtime, queues, clock: { now: () => shifted(HOUR) } }, { dueBefore: new Date(0) });
    expect(queued).not.toContain(id);
  });

  it('park from an API host whose clock is ahead waits for the attempt in flight', async () => {
    const id = await queuedExecution();
    claimed(await claim(id, new Date()));
    const result = await parkExecution({ ...ctx.runtime, clock: { now: () => shifted(HOUR) } }, workspaceId, id);
    expect(result.parked).toBe(false);
    expect(await row(id)).toMatchObject({ status: 'running', parkRequested: true });
  });
});
