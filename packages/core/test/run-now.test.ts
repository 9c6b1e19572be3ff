import { runNow } from '../src/executions/run-now.js';
import { countingPool } from './counting-pool.js';
import { aJob, useWorkspace } from './factories.js';
import type { TestContext } from './test-context.js';

// POST /v1/jobs/:id/run-now reads the job and writes its execution in one statement, shared by
// the calls that arrive together.

let ctx: TestContext;
let a: string;
let b: string;
let jobA: string;

const w = useWorkspace({ name: 'a', second: 'b' });
beforeAll(async () => {
  ({ ctx, workspaceId: a, second: { id: b } } = w);
  jobA = (await aJob(ctx.runtime, a, { name: 'manual' })).id;
});

it('returns each execution exactly as stored, queued now with source manual', async () => {
  const execution = await runNow(ctx.runtime, a, jobA);
  expect(execution).toEqual(await ctx.runtime.db.execution.findUniqueOrThrow({ where: { id: execution.id } }));
  expect(execution).toMatchObject({ jobId: jobA, jobName: 'manual', workspaceId: a, status: 'queued', source: 'manual', fireKey: null, attemptCount: 0 });
  expect(execution.nextAttemptAt).toEqual(execution.scheduledFor);
});

it('writes the executions of concurrent calls in one statement', async () => {
  const { pool, statements } = countingPool(ctx.runtime.pool);
  const executions = await Promise.all(Array.from({ length: 8 }, () => runNow({ ...ctx.runtime, pool }, a, jobA)));
  expect(statements.get('run-now')).toBe(1);
  expect(new Set(executions.map((e) => e.id)).size).toBe(8);
  expect(await ctx.runtime.db.execution.count({ where: { id: { in: executions.map((e) => e.id) } } })).toBe(8);
});

it("answers 404 for another workspace's job, and for one that does not exist, and writes nothing", async () => {
  const before = await ctx.runtime.db.execution.count();
  const { pool } = countingPool(ctx.runtime.pool);
  const results = await Promise.allSettled([runNow({ ...ctx.runtime, pool }, b, jobA), runNow({ ...ctx.runtime, pool }, a, 'job_missing'), runNow({ ...ctx.runtime, pool }, a, jobA)]);
  expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
  expect(results[0]).toMatchObject({ reason: { code: 'not_found', status: 404 } });
  expect(await ctx.runtime.db.execution.count()).toBe(before + 1);
});
