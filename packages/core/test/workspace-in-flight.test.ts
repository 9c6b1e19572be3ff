import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { claimAttempt, extendLease, releaseClaims, type ClaimedExecution, type ClaimResult } from '../src/executions/claim-attempt.js';
import { createDatabase, type Db, type SqlPool } from '../src/db/client.js';
import { newExecutionVariables } from '../src/executions/execution-variables.js';
import { parkExecution } from '../src/executions/park-execution.js';
import { recordAttempt, type AttemptRecord } from '../src/executions/record-attempt.js';
import { runNow } from '../src/executions/run-now.js';
import { aJob, useWorkspace } from './factories.js';
import { repoRoot, type TestContext } from './test-context.js';

// Fair share in the claim (docs/adr/022-fair-share-between-workspaces.md): at most
// WORKSPACE_MAX_IN_FLIGHT executions of one workspace run under a lease at once, whichever
// executors claim them and however their claims race; a claim refused for room changes nothing.

const CAP = 10;
const LEASE = 30_000;
let ctx: TestContext;
let a: string;
let b: string;
let jobA: string;
let jobB: string;
// Three executors' worth of connection pools, so that their claim batches run concurrently.
let executors: { db: Db; pool: SqlPool }[];

// Registered first so that it runs first: the pools close before the test's database is dropped.
afterEach(async () => {
  for (const e of executors) {
    await e.db.$disconnect();
    await e.pool.end();
  }
});
const w = useWorkspace({ env: { EXECUTION_LEASE_MS: String(LEASE), WORKSPACE_MAX_IN_FLIGHT: String(CAP) }, second: 'b', perTest: true });
beforeEach(async () => {
  ({ ctx, workspaceId: a } = w);
  b = w.second.id;
  jobA = (await aJob(ctx.runtime, a)).id;
  jobB = (await aJob(ctx.runtime, b)).id;
  executors = [1, 2, 3].map(() => createDatabase(ctx.env.DATABASE_URL, { max: 4 }));
});

const claimOn = (n: number, id: string, now = new Date()): Promise<ClaimResult> =>
  claimAttempt({ ...executors[n % executors.length], config: ctx.config }, id, now, LEASE, newExecutionVariables(now));
const claimed = (result: ClaimResult): ClaimedExecution => {
  if (!('claimed' in result)) throw new Error(`not claimed: ${JSON.stringify(result)}`);
  return result.claimed;
};
const queued = async (jobId: string, workspaceId: string, n: number) => Promise.all(Array.from({ length: n }, async () => (await runNow(ctx.runtime, workspaceId, jobId)).id));
const success: AttemptRecord = {
  verdict: { status: 'SUCCESS', errorClass: null, errorMessage: null, outcome: 'succeeded' },
  latencyMs: 1,
  statusCode: 200,
  preview: 'ok',
  headers: {},
  output: null,
  request: null,
  budgetWaitMs: 0,
};
const retry: AttemptRecord = { ...success, verdict: { status: 'TIMEOUT', errorClass: 'TIMEOUT', errorMessage: 'slow', outcome: 'retry', retryAt: new Date(Date.now() + 250) } };

/** Each workspace's counter and what count(*) says of executions running under a lease. */
async function counts(): Promise<{ counted: Record<string, number>; actual: Record<string, number> }> {
  const q = async (sql: string) => Object.fromEntries((await ctx.runtime.pool.query<{ w: string; n: string }>(sql)).rows.map((r) => [r.w, Number(r.n)]));
  return {
    counted: await q(`SELECT workspace_id AS w, sum(n) AS n FROM in_flight_counts GROUP BY 1 HAVING sum(n) <> 0`),
    actual: await q(`SELECT workspace_id AS w, count(*) AS n FROM executions WHERE status = 'running' AND locked_until IS NOT NULL GROUP BY 1`),
  };
}
async function expectCountedExactly(): Promise<void> {
  const { counted, actual } = await counts();
  expect(counted).toEqual(actual);
}

it('starts at most the cap of one workspace across executors racing, and defers the rest untouched', async () => {
  const ids = await queued(jobA, a, 60);
  const results = await Promise.all(ids.map((id, i) => claimOn(i, id)));
  const won = results.filter((r) => 'claimed' in r);
  expect(won).toHaveLength(CAP);
  for (const r of results.filter((r) => !('claimed' in r))) expect(r).toMatchObject({ deferred: 'workspace_in_flight', workspaceId: a });
  const held = await ctx.runtime.db.execution.findMany({ where: { jobId: jobA, status: 'queued' } });
  expect(held).toHaveLength(60 - CAP);
  for (const row of held) expect(row).toMatchObject({ attemptCount: 0, claimToken: 0, unrecordedClaims: 0, lockedUntil: null, startedAt: null, variables: null });
  expect(await ctx.runtime.db.attempt.count()).toBe(0);
  await expectCountedExactly();
  // Each claim answers the room it left, down to none.
  expect(won.map((r) => claimed(r).workspaceRoom).sort((x, y) => x! - y!)).toEqual(Array.from({ length: CAP }, (_, i) => i));
});

it('keeps another workspace claiming while one is at its cap', async () => {
  const full = await queued(jobA, a, CAP + 5);
  await Promise.all(full.map((id, i) => claimOn(i, id)));
  const [other] = await queued(jobB, b, 1);
  expect(claimed(await claimOn(0, other)).workspaceRoom).toBe(CAP - 1);
});

it('gives room back when an attempt is recorded, released, or parked', async () => {
  const ids = await queued(jobA, a, CAP + 3);
  const first = (await Promise.all(ids.slice(0, CAP).map((id, i) => claimOn(i, id)))).map(claimed);
  const [x, y, z] = ids.slice(CAP);
  expect(await claimOn(0, x)).toHaveProperty('deferred');

  await recordAttempt(ctx.runtime, first[0], 1, new Date(), success);
  expect(claimed(await claimOn(1, x)).workspaceRoom).toBe(0);
  expect(await claimOn(2, y)).toHaveProperty('deferred');

  expect(await releaseClaims(ctx.runtime.pool, [{ executionId: first[1].id, claimToken: first[1].claimToken }])).toEqual([first[1].id]);
  // A released lease stays released: renewing it is refused.
  expect(await extendLease(ctx.runtime.pool, first[1].id, first[1].claimToken, LEASE)).toBe(false);
  claimed(await claimOn(2, y));
  await expectCountedExactly();

  // A retry holds no lease between its attempts, so it holds no room; when due it needs room again.
  await recordAttempt(ctx.runtime, first[2], 1, new Date(), retry);
  claimed(await claimOn(0, z));
  await ctx.runtime.pool.query(`UPDATE executions SET next_attempt_at = now() - interval '1 second' WHERE id = $1`, [first[2].id]);
  expect(await claimOn(1, first[2].id)).toMatchObject({ deferred: 'workspace_in_flight' });

  await recordAttempt(ctx.runtime, first[3], 1, new Date(), success);
  claimed(await claimOn(1, first[2].id));
  await expectCountedExactly();
  // Parked after its attempt, a running execution gives its room back when that attempt is recorded.
  await parkExecution(ctx.runtime, a, first[4].id);
  await recordAttempt(ctx.runtime, first[4], 1, new Date(), retry);
  await expectCountedExactly();
});

it('lets a takeover of an expired lease through at the cap: it holds its room already', async () => {
  const ids = await queued(jobA, a, CAP);
  const all = (await Promise.all(ids.map((id, i) => claimOn(i, id)))).map(claimed);
  await ctx.runtime.pool.query(`UPDATE executions SET locked_until = now() - interval '1 millisecond' WHERE id = $1`, [all[0].id]);
  const taken = claimed(await claimOn(1, all[0].id));
  expect(taken.claimToken).toBe(all[0].claimToken + 1);
  expect(taken.workspaceRoom).toBeNull();
  await expectCountedExactly();
});

it('claims without limit when WORKSPACE_MAX_IN_FLIGHT is 0', async () => {
  const ids = await queued(jobA, a, CAP + 5);
  const results = await Promise.all(ids.map((id, i) => claimAttempt({ ...executors[i % 3], config: { workspaceMaxInFlight: 0 } }, id, new Date(), LEASE, newExecutionVariables(new Date()))));
  expect(results.every((r) => 'claimed' in r && r.claimed.workspaceRoom === null)).toBe(true);
  await expectCountedExactly();
});

it('backfills the counters of executions in flight before the migration', async () => {
  const ids = await queued(jobA, a, 4);
  await Promise.all(ids.map((id, i) => claimOn(i, id)));
  const migration = await readFile(path.join(repoRoot, 'prisma/migrations/20261202000000_workspace_in_flight/migration.sql'), 'utf8');
  await ctx.runtime.pool.query(`DROP TABLE in_flight_counts; DROP FUNCTION in_flight_counts_apply() CASCADE; DROP FUNCTION workspace_room(text[], integer[], boolean)`);
  await ctx.runtime.pool.query(migration);
  await expectCountedExactly();
  expect((await counts()).actual).toEqual({ [a]: 4 });
});

it('keeps the counters exact under executors claiming, renewing, recording and releasing at once', async () => {
  const ids = [...(await queued(jobA, a, 40)), ...(await queued(jobB, b, 40))];
  const rounds = async (n: number) => {
    for (let round = 0; round < 6; round++) {
      const results = await Promise.all(ids.map((id) => claimOn(n, id)));
      const mine = results.filter((r): r is { claimed: ClaimedExecution } => 'claimed' in r).map((r) => r.claimed);
      await Promise.all(
        mine.map(async (exe, i) => {
          await extendLease(executors[n].pool, exe.id, exe.claimToken, LEASE);
          if (i % 3 === 0) await releaseClaims(executors[n].pool, [{ executionId: exe.id, claimToken: exe.claimToken }]);
          else await recordAttempt({ ...ctx.runtime, pool: executors[n].pool }, exe, exe.attemptCount + 1, new Date(), i % 3 === 1 ? retry : success);
        }),
      );
      // Retries come due at once. Three of these run together: each takes its rows in one order and
      // skips those another holds (they come due in its own pass), so the test itself never deadlocks.
      await executors[n].pool.query(`
        UPDATE executions SET next_attempt_at = now()
         WHERE id IN (SELECT id FROM executions WHERE status = 'running' AND locked_until IS NULL ORDER BY id FOR UPDATE SKIP LOCKED)`);
    }
  };
  await Promise.all([0, 1, 2].map(rounds));
  await expectCountedExactly();
  expect(await ctx.runtime.db.execution.count({ where: { status: 'succeeded' } })).toBeGreaterThan(0);
});
