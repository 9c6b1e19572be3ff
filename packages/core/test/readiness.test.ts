import { checkReadiness } from '../src/runtime/readiness.js';
import { startHeartbeat, supervisedWorkers, type Heartbeat } from '../src/runtime/heartbeat.js';
import { aJob, aRecurringJob, useWorkspace } from './factories.js';
import type { TestContext } from './test-context.js';

let ctx: TestContext;
let beats: Heartbeat[] = [];

const w = useWorkspace({ env: { READY_MAX_FIRE_LAG_SECONDS: '60' } });
beforeAll(() => ({ ctx } = w));
afterEach(async () => {
  await Promise.all(beats.map((b) => b.stop()));
  beats = [];
});

const beatAll = async (supervisor: string) => {
  beats = await Promise.all((['scheduler', 'executor', 'notifier'] as const).map((kind) => startHeartbeat(ctx.runtime, kind, supervisor)));
};

it('reports every worker of a supervisor as ok while each heartbeat is fresh, and not those of another', async () => {
  await beatAll('sup-a');
  expect(await checkReadiness(ctx.runtime, { supervisor: 'sup-a' })).toEqual({
    ready: true,
    checks: { database: 'ok', queues: 'ok', migrations: 'ok', scheduler: 'ok', executor: 'ok', notifier: 'ok' },
    errors: {},
  });
  const other = await checkReadiness(ctx.runtime, { supervisor: 'sup-b' });
  expect(other.ready).toBe(false);
  expect(other.checks).toMatchObject({ scheduler: 'fail: not running', executor: 'fail: not running', notifier: 'fail: not running' });
});

it('fails a worker whose heartbeat is stale, naming how long it has been quiet', async () => {
  await beatAll('sup-stale');
  await ctx.runtime.pool.query(`UPDATE workers SET heartbeat_at = now() - interval '40 seconds' WHERE id = $1`, [beats[1].workerId]);
  const { ready, checks } = await checkReadiness(ctx.runtime, { supervisor: 'sup-stale' });
  expect(ready).toBe(false);
  expect(checks.executor).toMatch(/^fail: no heartbeat for 4\d s$/);
  expect(checks.scheduler).toBe('ok');
});

it('fails a worker at once when its supervisor saw the process exit', async () => {
  await beatAll('sup-gone');
  const workers = supervisedWorkers(ctx.config.databaseUrl, 'sup-gone');
  await workers.forget(process.pid);
  await workers.close();
  const { checks } = await checkReadiness(ctx.runtime, { supervisor: 'sup-gone' });
  expect(checks).toMatchObject({ scheduler: 'fail: not running', executor: 'fail: not running', notifier: 'fail: not running' });
});

it('removes the row on a clean stop', async () => {
  const beat = await startHeartbeat(ctx.runtime, 'executor', undefined);
  expect(await checkReadiness(ctx.runtime, { workerId: beat.workerId, kind: 'executor' })).toMatchObject({ ready: true, checks: { executor: 'ok' } });
  await beat.stop();
  const { rows } = await ctx.runtime.pool.query('SELECT 1 FROM workers WHERE id = $1', [beat.workerId]);
  expect(rows).toEqual([]);
});

it('fails the scheduler when a due fire is later than READY_MAX_FIRE_LAG_SECONDS', async () => {
  await beatAll('sup-late');
  const { id: workspaceId } = await ctx.workspace('late');
  const job = await aJob(ctx.runtime, workspaceId, aRecurringJob({ schedule: { every_n_minutes: 5 } }));
  try {
    await ctx.runtime.pool.query(`UPDATE jobs SET next_run_at = now() - interval '30 seconds' WHERE id = $1`, [job.id]);
    expect((await checkReadiness(ctx.runtime, { supervisor: 'sup-late' })).checks.scheduler).toBe('ok');
    await ctx.runtime.pool.query(`UPDATE jobs SET next_run_at = now() - interval '75 seconds' WHERE id = $1`, [job.id]);
    const { ready, checks } = await checkReadiness(ctx.runtime, { supervisor: 'sup-late' });
    expect(ready).toBe(false);
    expect(checks.scheduler).toMatch(/^fail: a due fire is 7\d s late \(READY_MAX_FIRE_LAG_SECONDS=60\)$/);
    expect(checks.executor).toBe('ok');
  } finally {
    await ctx.runtime.pool.query('UPDATE jobs SET next_run_at = NULL WHERE id = $1', [job.id]);
  }
});
