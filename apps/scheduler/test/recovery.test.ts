import { executionJobId, executionRow } from '@cronsvc/core';
import { aJob, answerInTurn, aOneTimeJob, aRecurringJob, useTargetServer, useWorkspace, waitFor, type TestContext } from '@cronsvc/core/testing';

// Each test runs the apps as real processes, as `npm run start -w apps/<name>` would, against a
// context and target of its own.
let ctx: TestContext;
let workspaceId: string;

const w = useWorkspace({ env: { EXECUTION_LEASE_MS: '2000' }, perTest: true });
const target = useTargetServer({ perTest: true });
beforeEach(() => ({ ctx, workspaceId } = w));

const countBy = <T>(items: T[], key: (t: T) => string) => items.reduce((m, t) => m.set(key(t), (m.get(key(t)) ?? 0) + 1), new Map<string, number>());

async function allFinished(jobIds: string[]) {
  return waitFor(
    async () => {
      const open = await ctx.runtime.db.execution.count({ where: { jobId: { in: jobIds }, status: { notIn: ['succeeded', 'failed'] } } });
      return open === 0;
    },
    { timeoutMs: 40_000, what: 'every execution to finish' },
  );
}

/** After the queue store lost the jobs' executions: an executor and a scheduler rebuild the queue and run each job once, on its own path. */
async function expectRebuiltAndRunOnce(jobIds: string[]) {
  expect(await ctx.loseQueues()).toBeGreaterThan(0);
  ctx.spawnApp('executor');
  ctx.spawnApp('scheduler');
  await allFinished(jobIds);
  const hits = countBy(target.received, (r) => r.url);
  expect(hits.size).toBe(jobIds.length);
  expect([...hits.values()].every((n) => n === 1)).toBe(true);
  expect(await ctx.runtime.db.execution.count({ where: { jobId: { in: jobIds }, status: 'succeeded' } })).toBe(jobIds.length);
}

it('fires every slot exactly once with two scheduler processes running', async () => {
  const jobIds: string[] = [];
  for (let i = 0; i < 30; i++) {
    jobIds.push((await aJob(ctx.runtime, workspaceId, aRecurringJob({ schedule: { every_n_minutes: 1 }, request: { url: `${target.url}/j${i}` } }))).id);
  }
  // Due in two seconds: both schedulers will be running by then.
  const due = new Date(Date.now() + 2_000);
  await ctx.runtime.db.job.updateMany({ where: { id: { in: jobIds } }, data: { nextRunAt: due, scheduleAnchor: new Date(due.getTime() - 60_000) } });
  ctx.spawnApp('scheduler');
  ctx.spawnApp('scheduler');
  ctx.spawnApp('executor');
  await waitFor(async () => (await ctx.runtime.db.execution.count({ where: { jobId: { in: jobIds } } })) >= 30, { timeoutMs: 30_000, what: '30 fires' });
  await allFinished(jobIds);
  const executions = await ctx.runtime.db.execution.findMany({ where: { jobId: { in: jobIds } } });
  expect(executions).toHaveLength(30);
  expect(executions.every((e) => e.scheduledFor.getTime() === due.getTime() && e.status === 'succeeded')).toBe(true);
  const hits = countBy(target.received, (r) => r.url);
  expect(hits.size).toBe(30);
  expect([...hits.values()].every((n) => n === 1)).toBe(true);
  const jobs = await ctx.runtime.db.job.findMany({ where: { id: { in: jobIds } } });
  expect(jobs.every((j) => j.nextRunAt!.getTime() === due.getTime() + 60_000)).toBe(true);
});

it('rebuilds the queue from Postgres after the queue store loses it, running each execution once', async () => {
  const jobIds: string[] = [];
  for (let i = 0; i < 10; i++) {
    jobIds.push((await aJob(ctx.runtime, workspaceId, aOneTimeJob({ request: { url: `${target.url}/o${i}` } }))).id);
  }
  await expectRebuiltAndRunOnce(jobIds);
});

it('runs once each one_time job the API answered 201 for, though the API is killed and Redis flushed right after', async () => {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const api = ctx.spawnApp('api', { PORT: String(port) });
  const base = `http://127.0.0.1:${port}`;
  // Loading the API from source takes seconds, and far longer on a busy machine.
  await waitFor(async () => (await fetch(`${base}/healthz`)).ok, { timeoutMs: 90_000, what: () => `the API (output: ${api.output()})` });
  const { token } = await ctx.workspace('api-created');
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      fetch(`${base}/v1/jobs`, { method: 'POST', headers, body: JSON.stringify(aOneTimeJob({ request: { url: `${target.url}/a${i}` } })) }),
    ),
  );
  expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
  const jobIds = await Promise.all(answers.map(async (a) => ((await a.json()) as { id: string }).id));
  await api.kill('SIGKILL');
  await expectRebuiltAndRunOnce(jobIds);
}, 150_000);

it('recovers from a flush of the queue store while the workers keep running', async () => {
  const scheduler = ctx.spawnApp('scheduler');
  ctx.spawnApp('executor');
  target.handle((_req, res) => void res.end('ok'));
  const first = (await aJob(ctx.runtime, workspaceId, aOneTimeJob({ request: { url: `${target.url}/before` } }))).id;
  await allFinished([first]);
  // A retry waiting in the queue is lost with the flush; the reconciler must queue it again.
  answerInTurn(target, [503, 200]);
  const second = (await aJob(ctx.runtime, workspaceId, aOneTimeJob({ request: { url: `${target.url}/during` } }))).id;
  await waitFor(async () => (await ctx.runtime.db.attempt.count({ where: { execution: { jobId: second } } })) === 1, { what: 'first attempt' });
  await ctx.loseQueues();
  await allFinished([second]);
  const exe = await ctx.runtime.db.execution.findFirstOrThrow({ where: { jobId: second }, include: { attempts: true } });
  expect(exe.status).toBe('succeeded');
  expect(exe.attempts.map((a) => a.statusCode).sort()).toEqual([200, 503]);
  expect(scheduler.child.exitCode).toBeNull();
});

it('finishes an execution whose executor was killed mid-request on another executor', async () => {
  let hold = true;
  target.handle((_req, res) => {
    if (!hold) res.end('done');
  });
  const first = ctx.spawnApp('executor');
  const job = await aJob(ctx.runtime, workspaceId, aOneTimeJob({ request: { url: target.url } }));
  await waitFor(() => target.received.length === 1, { timeoutMs: 20_000, what: 'the first executor to call the target' });
  const running = await ctx.runtime.db.execution.findFirstOrThrow({ where: { jobId: job.id } });
  expect(running.status).toBe('running');
  await first.kill('SIGKILL');
  hold = false;
  ctx.spawnApp('executor');
  await allFinished([job.id]);
  const exe = await ctx.runtime.db.execution.findFirstOrThrow({ where: { jobId: job.id }, include: { attempts: true } });
  expect(exe.status).toBe('succeeded');
  // The killed worker never recorded its attempt; the survivor's is attempt 1.
  expect(exe.attempts.map((a) => [a.number, a.status])).toEqual([[1, 'SUCCESS']]);
  expect(target.received).toHaveLength(2);
  expect(exe.lockedUntil).toBeNull();
});

it('runs the fires a killed executor was holding for their due time, once each', async () => {
  const queue = ctx.runtime.queues.dashboardQueues()[0];
  const first = ctx.spawnApp('executor');
  await waitFor(async () => (await queue.getWorkers()).length > 0, { timeoutMs: 20_000, what: 'the first executor to listen' });
  const job = await aJob(ctx.runtime, workspaceId, { request: { url: target.url } });
  const due = new Date(Date.now() + 2_500);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const row = executionRow({ workspaceId, jobId: job.id, jobName: job.name, source: 'manual', scheduledFor: due });
    ids.push((await ctx.runtime.db.execution.create({ data: row })).id);
  }
  await ctx.runtime.queues.enqueueExecutions(ids.map((id) => ({ executionId: id, attempt: 1, runAt: due })));
  // Handed over early: once the queue no longer has them, only the first executor's memory does.
  await waitFor(async () => (await Promise.all(ids.map((id) => queue.getJob(executionJobId(id, 1))))).every((j) => j === undefined), {
    what: 'the first executor to take the fires',
  });
  await first.kill('SIGKILL');
  expect(Date.now()).toBeLessThan(due.getTime());
  ctx.spawnApp('scheduler');
  ctx.spawnApp('executor');
  await allFinished([job.id]);
  const hits = countBy(target.received, (r) => String(r.headers['x-cron-service-execution-id']));
  expect([...hits.keys()].sort()).toEqual([...ids].sort());
  expect([...hits.values()].every((n) => n === 1)).toBe(true);
  expect(target.received.every((r) => r.at >= due.getTime())).toBe(true);
});
