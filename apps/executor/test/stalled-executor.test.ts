import type http from 'node:http';
import { createHttpClient, getExecution, runAttempt, type RunOutcome } from '@cronsvc/core';
import { aOneTimeExecution, waitFor, type TargetServer, type TestContext } from '@cronsvc/core/testing';
import { startExecutor, type Executor } from '../src/executor.js';
import { useExecutorFixture } from './executor-fixture.js';

// An executor that stalls past its lease (paused, or starved) or whose clock is wrong must not
// hold or take an attempt it lost: the other executor takes it over once, and the stalled one's
// late recording is refused.

let ctx: TestContext;
let target: TargetServer;
let workspaceId: string;
const running: Executor[] = [];

// Registered before the fixture's hooks, so the executors a test started stop before its context closes.
afterEach(() => Promise.all(running.splice(0).map((e) => e.stop())));
const fixture = useExecutorFixture({ env: { EXECUTION_LEASE_MS: '2000' }, executor: false, perTest: true });
beforeEach(() => ({ ctx, target, workspaceId } = fixture));

/** Requests the target got and has not answered yet, in order of arrival. */
function holdEveryRequest(): http.ServerResponse[] {
  const held: http.ServerResponse[] = [];
  target.handle((_req, res) => void held.push(res));
  return held;
}

const oneTimeJob = async (path: string) => (await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: `${target.url}/${path}` } })).executionId;

it('refuses the late recording of a paused executor, whose attempt another executor took over once', async () => {
  const held = holdEveryRequest();
  const paused = ctx.spawnApp('executor', { LOG_LEVEL: 'warn' });
  const id = await oneTimeJob('paused');
  await waitFor(() => held.length === 1, { what: 'the first executor to send the request', timeoutMs: 20_000 });
  const group = -paused.child.pid!;
  process.kill(group, 'SIGSTOP');
  try {
    // Its answer waits in the paused executor's socket.
    held[0].end('from the paused executor');
    running.push(startExecutor(ctx.runtime));
    await waitFor(() => held.length === 2, { what: 'the second executor to take the attempt over', timeoutMs: 20_000 });
  } finally {
    process.kill(group, 'SIGCONT');
  }
  // Resumed, the first executor reads its answer and tries to record while the second one's request is in flight.
  await waitFor(
    async () => paused.output().includes('attempt not recorded') || (await getExecution(ctx.runtime, workspaceId, id)).status !== 'running',
    { what: 'the resumed executor to try to record', timeoutMs: 20_000 },
  );
  expect((await getExecution(ctx.runtime, workspaceId, id)).status).toBe('running');
  held[1].end('from the executor that took over');
  const exe = await waitFor(async () => {
    const e = await getExecution(ctx.runtime, workspaceId, id);
    return e.status === 'succeeded' ? e : undefined;
  }, { what: 'the execution to succeed' });
  expect(exe.attempts.map((a) => [a.number, a.status, a.bodyPreview])).toEqual([[1, 'SUCCESS', 'from the executor that took over']]);
  expect(held).toHaveLength(2);
  expect(paused.output()).toContain('attempt not recorded: the execution was taken over by another worker');
}, 90_000);

describe('an executor whose clock is skewed by an hour', () => {
  const attemptWith = (offsetMs: number, executionId: string): Promise<RunOutcome> =>
    runAttempt({ ...ctx.runtime, http: createHttpClient({ allowPrivateTargets: true }), clock: { now: () => new Date(Date.now() + offsetMs) } }, executionId);

  it('ahead, does not take over an attempt a live executor holds', async () => {
    const held = holdEveryRequest();
    const id = await oneTimeJob('ahead');
    const first = attemptWith(0, id);
    await waitFor(() => held.length === 1, { what: 'the first request' });
    expect(await attemptWith(3_600_000, id)).toHaveProperty('retryAt');
    held[0].end('ok');
    expect(await first).toMatchObject({ done: 'succeeded' });
    expect(held).toHaveLength(1);
  });

  it('behind, holds its lease for its full length: a live executor does not take over', async () => {
    const held = holdEveryRequest();
    const id = await oneTimeJob('behind');
    const lagging = attemptWith(-3_600_000, id);
    await waitFor(() => held.length === 1, { what: 'the first request' });
    expect(await attemptWith(0, id)).toHaveProperty('retryAt');
    held[0].end('ok');
    expect(await lagging).toMatchObject({ done: 'succeeded' });
    expect(held).toHaveLength(1);
  });
});
