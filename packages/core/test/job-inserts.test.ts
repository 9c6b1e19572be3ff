import { createJob } from '../src/jobs/create-job.js';
import { insertJob } from '../src/jobs/insert-job.js';
import { newId } from '../src/ids/ids.js';
import { countingPool } from './counting-pool.js';
import type { Deps } from '../src/runtime/deps.js';
import { createTestContext, type TestContext } from './test-context.js';

// POST /v1/jobs stores the jobs created at the same moment with one INSERT per batch. Every
// job must come out of a mixed batch exactly as it would alone, and exactly as it is stored.

let ctx: TestContext;
let a: string;
let b: string;

beforeAll(async () => {
  ctx = await createTestContext();
  a = (await ctx.workspace('a')).id;
  b = (await ctx.workspace('b')).id;
});
afterAll(() => ctx.close());

/** Deps whose pool counts the statements sent under each prepared name (a pool of its own, so a batcher of its own). */
function countingDeps(): { deps: Deps; statements: Map<string, number> } {
  const { pool, statements } = countingPool(ctx.runtime.pool);
  return { deps: { ...ctx.runtime, pool }, statements };
}

const hourly = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  kind: 'recurring',
  schedule: { every_n_minutes: 60 },
  request: { url: 'https://example.com/hook' },
  ...extra,
});

const stored = (id: string) => ctx.runtime.db.job.findUniqueOrThrow({ where: { id } });

it('stores concurrent creates of two workspaces in one statement, each returned exactly as stored', async () => {
  const { deps, statements } = countingDeps();
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => createJob(deps, i % 2 ? a : b, hourly(`batch ${i}`))));
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
  const body = hourly(hostile, {
    request: { url: 'https://example.com/hook?q=%22x%22', method: 'POST', headers: { 'X-Odd': hostileHeader }, body: { text: hostile, list: [hostile, null, 'NULL'] } },
  });
  const { job } = await createJob(ctx.runtime, a, body);
  expect(job.name).toBe(hostile);
  expect(job.request).toMatchObject({ headers: { 'X-Odd': hostileHeader }, body: { text: hostile, list: [hostile, null, 'NULL'] } });
  expect(job).toEqual(await stored(job.id));
});

it('returns a one_time job as stored, committed with its first execution', async () => {
  const { job, created } = await createJob(ctx.runtime, a, { name: 'once', kind: 'one_time', request: { url: 'https://example.com/once' } });
  expect(created).toBe(true);
  expect(job).toEqual(await stored(job.id));
  expect(await ctx.runtime.db.execution.count({ where: { jobId: job.id, source: 'schedule', status: 'queued' } })).toBe(1);
});

it('fails only the job of a batch that cannot be stored', async () => {
  const { deps, statements } = countingDeps();
  const [good, bad, alsoGood] = await Promise.allSettled([
    createJob(deps, a, hourly('good')),
    createJob(deps, 'wsp_gone', hourly('orphan')),
    createJob(deps, b, hourly('also good')),
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
  const { job: template } = await createJob(ctx.runtime, a, hourly('template'));
  const now = new Date();
  const row = (name: string) => ({ ...template, id: newId('job'), name, idempotencyKey: 'same-batch-key', createdAt: now, updatedAt: now });
  const [first, second] = await Promise.all([insertJob(deps.pool, row('first')), insertJob(deps.pool, row('second'))]);
  expect(statements.get('insert-jobs')).toBe(1);
  expect(first).toMatchObject({ name: 'first', idempotencyKey: 'same-batch-key' });
  expect(second).toBeNull();
  expect(await ctx.runtime.db.job.count({ where: { workspaceId: a, idempotencyKey: 'same-batch-key' } })).toBe(1);
});
