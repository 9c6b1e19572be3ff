import { runNow } from '@cronsvc/core';
import { aJob, aOneTimeExecution, waitFor, type TargetServer, type TestContext } from '@cronsvc/core/testing';
import { startExecutor, type Executor } from '../src/executor.js';
import { useExecutorFixture } from './executor-fixture.js';

// Fair share between workspaces (docs/EXECUTIONS.md, "Fair share"): workspace A runs hundreds of
// run-nows of a job whose target hangs, which on its own would take every attempt slot of every
// executor for as long as the requests hang (up to timeout_seconds, 300 s). At most
// WORKSPACE_MAX_IN_FLIGHT (default 50) of A's requests are out at once across all executors, the
// rest wait queued without spending an attempt, and workspace B's one_time job is called within a
// second. Once A's target answers, every one of A's executions runs, each exactly once.

const SLOTS = 60;
const RUN_NOWS = 260;
const CAP = 50;

let ctx: TestContext;
let target: TargetServer;
const running: Executor[] = [];
let releaseHang = () => undefined as void;

// Registered before the fixture's hooks, so the executors a test started stop (their requests
// answered, should the test have failed before) before its context closes.
afterEach(() => {
  releaseHang();
  return Promise.all(running.splice(0).map((e) => e.stop()));
});
const fixture = useExecutorFixture({ env: { EXECUTOR_CONCURRENCY: String(SLOTS) }, second: 'other', executor: false, perTest: true });
beforeEach(() => ({ ctx, target } = fixture));

/** Holds A's requests (under /a) until released and answers everything else at once; counts A's requests open. */
function hangForA() {
  let open = 0;
  let most = 0;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  releaseHang = release;
  target.handle(async (req, res) => {
    if (!req.url.startsWith('/a')) return void res.end('ok');
    open += 1;
    most = Math.max(most, open);
    await held;
    open -= 1;
    res.end('ok');
  });
  return { open: () => open, most: () => most, release };
}

/** Runs the attack against the executors `startExecutors` starts; what it answers tells what they printed, for failures. */
async function attack(startExecutors: () => Promise<() => string>) {
  const a = fixture.workspaceId;
  const b = fixture.second.id;
  const hang = hangForA();
  const job = await aJob(ctx.runtime, a, { request: { url: `${target.url}/a`, timeout_seconds: 300 } });
  const output = await startExecutors();
  await Promise.all(Array.from({ length: RUN_NOWS }, () => runNow(ctx.runtime, a, job.id)));
  await waitFor(() => hang.open() >= CAP, { what: () => `${CAP} of A's requests to be out (${hang.open()})`, timeoutMs: 30_000 });
  // The flood is in place: every run-now has reached an executor, and only the queue jobs of the
  // requests out are still in hand.
  const queued = async () => (await ctx.runtime.queues.jobCounts()).find((q) => q.queue === 'executions')!.counts;
  let counts = await queued();
  await waitFor(async () => {
    counts = await queued();
    return counts.waiting === 0 && counts.active === CAP;
  }, { what: () => `A's run-nows to reach the executors: ${JSON.stringify(counts)}\n${output()}`, timeoutMs: 30_000 });

  // Timed from the moment B's job exists (its creation answered), as a user of the API would.
  await aOneTimeExecution(ctx.runtime, b, { request: { url: `${target.url}/b` } });
  const createdAt = Date.now();
  const call = await waitFor(() => target.received.find((r) => r.url === '/b'), { what: () => `B's one_time job to be called\n${output()}`, timeoutMs: 10_000, intervalMs: 10 });
  expect(call.at - createdAt).toBeLessThan(1_000);

  // Held back, A's other executions wait queued: no attempt made or recorded, no retry spent.
  expect(hang.most()).toBe(CAP);
  const executions = await ctx.runtime.db.execution.findMany({ where: { jobId: job.id }, select: { status: true, attemptCount: true } });
  expect(executions.filter((e) => e.status === 'queued')).toHaveLength(RUN_NOWS - CAP);
  expect(executions.every((e) => e.attemptCount === 0)).toBe(true);
  expect(await ctx.runtime.db.attempt.count({ where: { execution: { jobId: job.id } } })).toBe(0);

  hang.release();
  const succeeded = () => ctx.runtime.db.execution.count({ where: { jobId: job.id, status: 'succeeded' } });
  let done = 0;
  await waitFor(async () => (done = await succeeded()) === RUN_NOWS, { what: () => `all of A's executions to succeed (${done} did)\n${output()}`, timeoutMs: 60_000 });
  const calls = target.received.filter((r) => r.url === '/a');
  expect(calls).toHaveLength(RUN_NOWS);
  expect(new Set(calls.map((r) => r.headers['webhook-id'])).size).toBe(RUN_NOWS);
  expect(hang.most()).toBe(CAP);
  expect(await ctx.runtime.db.attempt.count({ where: { execution: { jobId: job.id } } })).toBe(RUN_NOWS);
  const { rows } = await ctx.runtime.pool.query<{ n: string | null }>('SELECT sum(n) AS n FROM in_flight_counts WHERE workspace_id = $1', [a]);
  expect(Number(rows[0].n)).toBe(0);
}

it('calls another workspace at once while one workspace floods a single executor with hanging requests', async () => {
  await attack(async () => {
    running.push(startExecutor(ctx.runtime));
    return () => '';
  });
}, 120_000);

it('holds the cap across three executors and calls another workspace at once', async () => {
  await attack(async () => {
    // Small pools: three executors and the test share the server with whatever else runs.
    const executors = [1, 2, 3].map(() => ctx.spawnApp('executor', { LOG_LEVEL: 'info', DATABASE_POOL_SIZE: '4' }));
    await waitFor(() => executors.every((e) => e.output().includes('executor started')), { what: 'three executors to start', timeoutMs: 60_000 });
    return () => executors.map((e) => e.output().slice(-3_000)).join('\n----\n');
  });
}, 180_000);
