import { createJob } from '../src/jobs/create-job.js';
import { insertJob, JOB_COLUMNS } from '../src/jobs/insert-job.js';
import { newBadgeToken, newId } from '../src/ids/ids.js';
import { countingPool } from './counting-pool.js';
import type { Deps } from '../src/deps/deps.js';
import { aCronJob, aOneTimeJob, aRecurringJob, useWorkspace } from './factories.js';
import type { TestContext } from './test-context.js';

// POST /v1/jobs stores the jobs created at the same moment with one INSERT per batch. Every
// job must come out of a mixed batch exactly as it would alone, and exactly as it is stored.

let ctx: TestContext;
let a: string;
let b: string;

const w = useWorkspace({ name: 'a', second: 'b' });
beforeAll(() => ({ ctx, workspaceId: a, second: { id: b } } = w));

/** Deps whose pool counts the statements sent under each prepared name (a pool of its own, so a batcher of its own). */
function countingDeps(): { deps: Deps; statements: Map<string, number> } {
  const { pool, statements } = countingPool(ctx.runtime.pool);
  return { deps: { ...ctx.runtime, pool }, statements };
}

const stored = (id: string) => ctx.runtime.db.job.findUniqueOrThrow({ where: { id } });

it('stores concurrent creates of two workspaces in one statement, each returned exactly as stored', async () => {
  const { deps, statements } = countingDeps();
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => createJob(deps, i % 2 ? a : b, aRecurringJob({ name: `batch ${i}` }))));
  expect(statements.get('insert-jobs')).toBe(1);
  for (const [i, { job, created }] of results.entries()) {
    expect(created).toBe(true);
    expect(job).toMatchObject({ name: `batch ${i}`, workspaceId: i % 2 ? a : b });
    expect(job).toEqual(await stored(job.id));
  }
});

it('keeps every character of strings that Postgres array literals escape', async () => {
  const hostile = 'NULL "quoted" \\back\\slash {braces},comma\nline ünï©ødé 🚀';
  // A header value may hold neither a line break nor a character beyond U+00FF (README, "Outbound requests").
  const hostileHeader = 'NULL "quoted" \\back\\slash {braces},comma ünï©ødé';
  const body = aRecurringJob({
    name: hostile,
    request: { url: 'https://example.com/hook?q=%22x%22', method: 'POST', headers: { 'X-Odd': hostileHeader }, body: { text: hostile, list: [hostile, null, 'NULL'] } },
  });
  const { job } = await createJob(ctx.runtime, a, body);
  expect(job.name).toBe(hostile);
  expect(job.request).toMatchObject({ headers: { 'X-Odd': hostileHeader }, body: { text: hostile, list: [hostile, null, 'NULL'] } });
  expect(job).toEqual(await stored(job.id));
});

it('returns a one_time job as stored, committed with its first execution', async () => {
  const { job, created } = await createJob(ctx.runtime, a, aOneTimeJob({ name: 'once' }));
  expect(created).toBe(true);
  expect(job).toEqual(await stored(job.id));
  const executions = await ctx.runtime.db.execution.findMany({ where: { jobId: job.id } });
  expect(executions).toHaveLength(1);
  expect(executions[0]).toMatchObject({
    workspaceId: a,
    jobName: 'once',
    source: 'schedule',
    status: 'queued',
    scheduledFor: job.createdAt,
    nextAttemptAt: job.createdAt,
    fireKey: `${job.id}@${job.createdAt.toISOString()}`,
    attemptCount: 0,
  });
});

it('stores concurrent one_time jobs and their first executions in one statement', async () => {
  const { deps, statements } = countingDeps();
  const results = await Promise.all(
    Array.from({ length: 12 }, (_, i) => createJob(deps, i % 2 ? a : b, (i % 3 ? aOneTimeJob : aCronJob)({ name: `fire ${i}` }))),
  );
  expect(statements.get('insert-jobs')).toBe(1);
  for (const { job } of results) {
    const executions = await ctx.runtime.db.execution.count({ where: { jobId: job.id } });
    expect([job.name, executions]).toEqual([job.name, job.kind === 'one_time' ? 1 : 0]);
  }
});

it('stores one job and one execution when one_time creates race on an Idempotency-Key', async () => {
  const body = aOneTimeJob({ name: 'raced once' });
  const results = await Promise.all(Array.from({ length: 10 }, () => createJob(ctx.runtime, b, body, 'one-time-race')));
  expect(results.filter((r) => r.created)).toHaveLength(1);
  expect(new Set(results.map((r) => r.job.id)).size).toBe(1);
  expect(await ctx.runtime.db.execution.count({ where: { jobId: results[0].job.id } })).toBe(1);
});

it('stores no execution for a one_time job that cannot be stored', async () => {
  await expect(createJob(ctx.runtime, 'wsp_gone', aOneTimeJob({ name: 'orphan once' }))).rejects.toThrow();
  expect(await ctx.runtime.db.execution.count({ where: { jobName: 'orphan once' } })).toBe(0);
});

it('declares every column of the jobs table in the insert', async () => {
  const { rows } = await ctx.runtime.pool.query<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_name = 'jobs'`);
  expect(JOB_COLUMNS.map((c) => c.name).sort()).toEqual(rows.map((r) => r.column_name).sort());
});

it('fails only the job of a batch that cannot be stored', async () => {
  const { deps, statements } = countingDeps();
  const [good, bad, alsoGood] = await Promise.allSettled([
    createJob(deps, a, aRecurringJob({ name: 'good' })),
    createJob(deps, 'wsp_gone', aRecurringJob({ name: 'orphan' })),
    createJob(deps, b, aRecurringJob({ name: 'also good' })),
  ]);
  expect(good.status).toBe('fulfilled');
  expect(alsoGood.status).toBe('fulfilled');
  expect(bad.status).toBe('rejected');
  // The batch, then each of its jobs alone.
  expect(statements.get('insert-jobs')).toBe(4);
  expect(await ctx.runtime.db.job.count({ where: { name: { in: ['good', 'also good', 'orphan'] } } })).toBe(2);
});

it('stores the first of two jobs with one Idempotency-Key in the same batch, and answers null for the second', async () => {
  const { deps, statements } = countingDeps();
  const { job: template } = await createJob(ctx.runtime, a, aRecurringJob({ name: 'template' }));
  const now = new Date();
  const row = (name: string) => ({ ...template, id: newId('job'), badgeToken: newBadgeToken(), name, idempotencyKey: 'same-batch-key', createdAt: now, updatedAt: now });
  const [first, second] = await Promise.all([insertJob(deps.pool, row('first')), insertJob(deps.pool, row('second'))]);
  expect(statements.get('insert-jobs')).toBe(1);
  expect(first).toMatchObject({ name: 'first', idempotencyKey: 'same-batch-key' });
  expect(second).toBeNull();
  expect(await ctx.runtime.db.job.count({ where: { workspaceId: a, idempotencyKey: 'same-batch-key' } })).toBe(1);
});
