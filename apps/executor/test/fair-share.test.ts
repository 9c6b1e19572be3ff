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

async function attack(startExecutors: () => Promise<void>) {
  const a = fixture.workspaceId;
  const b = fixture.second.id;
  const hang = hangForA();
  const job = await aJob(ctx.runtime, a, { request: { url: `${target.url}/a`, timeout_seconds: 300 } });
  await startExecutors();
  await Promise.all(Array.from({ length: RUN_NOWS }, () => runNow(ctx.runtime, a, job.id)));
  await waitFor(() => hang.open() >= CAP, { what: () => `${CAP} of A's requests to be out (${hang.open()})`, timeoutMs: 30_000 });

  const createdAt = Date.now();
  await aOneTimeExecution(ctx.runtime, b, { request: { url: `${target.url}/b` } });
  const call = await waitFor(() => target.received.find((r) => r.url === '/b'), { what: "B's one_time job to be called within a second", timeoutMs: 1_000, intervalMs: 10 });
  expect(call.at - createdAt).toBeLessThan(1_000);

  // Held back, A's other executions wait queued: no attempt made or recorded, no retry spent.
  expect(hang.most()).toBe(CAP);
  const executions = await ctx.runtime.db.execution.findMany({ where: { jobId: job.id }, select: { status: true, attemptCount: true } });
  expect(executions.filter((e) => e.status === 'queued')).toHaveLength(RUN_NOWS - CAP);
  expect(executions.every((e) => e.attemptCount === 0)).toBe(true);
  expect(await ctx.runtime.db.attempt.count({ where: { execution: { jobId: job.id } } })).toBe(0);

  hang.release();
  const succeeded = () => ctx.runtime.db.execution.count({ where: { jobId: job.id, status: 'succeeded' } });
  await waitFor(async () => (await succeeded()) === RUN_NOWS, { what: "all of A's executions to succeed", timeoutMs: 60_000 });
  const calls = target.received.filter((r) => r.url === '/a');
  expect(calls).toHaveLength(RUN_NOWS);
  expect(new Set(calls.map((r) => r.headers['webhook-id'])).size).toBe(RUN_NOWS);
  expect(hang.most()).toBe(CAP);
  expect(await ctx.runtime.db.attempt.count({ where: { execution: { jobId: job.id } } })).toBe(RUN_NOWS);
}

it('calls another workspace at once while one workspace floods a single executor with hanging requests', async () => {
  await attack(async () => {
    running.push(startExecutor(ctx.runtime));
  });
}, 120_000);

it('holds the cap across three executors and calls another workspace at once', async () => {
  await attack(async () => {
    const executors = [1, 2, 3].map(() => ctx.spawnApp('executor', { LOG_LEVEL: 'info' }));
    await waitFor(() => executors.every((e) => e.output().includes('executor started')), { what: 'three executors to start', timeoutMs: 60_000 });
  });
}, 180_000);
