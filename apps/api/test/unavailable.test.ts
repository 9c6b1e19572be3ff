import request from 'supertest';
import { createRuntime, getExecution, loadConfig, reconcileQueue, serviceLogger, type Runtime } from '@cronsvc/core';
import { aJob, aOneTimeJob, capturingLogger, closedPort, openDatabaseStores, useTargetServer, useWorkspace, waitFor, type TestContext } from '@cronsvc/core/testing';
import { startExecutor } from '@cronsvc/executor';
import { createApp } from '../src/app.js';

let ctx: TestContext;
let deadPort: number;

const w = useWorkspace();
const target = useTargetServer();
beforeAll(async () => {
  ({ ctx } = w);
  deadPort = await closedPort();
});

function runtimeWith(overrides: Record<string, string>): Runtime {
  const config = loadConfig({ ...ctx.env, ...overrides });
  return createRuntime(config, serviceLogger(config, 'unavailable-test'));
}

it('answers 503 service_unavailable with Retry-After while Postgres cannot be reached', async () => {
  const runtime = runtimeWith({ DATABASE_URL: `postgresql://postgres@127.0.0.1:${deadPort}/nothing` });
  try {
    const res = await request(createApp(runtime)).get('/v1/jobs').set('Authorization', 'Bearer csk_anything');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toEqual({ error: { code: 'service_unavailable', message: expect.any(String) } });
  } finally {
    await runtime.close();
  }
});

it('answers 503 and logs a warning, not an error, when a Prisma query hits the statement timeout (57014)', async () => {
  const { auth, id: workspaceId } = w.workspace;
  const job = await aJob(ctx.runtime, workspaceId);
  // The same app, on a pool whose statements Postgres cancels after 300 ms, while another
  // transaction holds the jobs table.
  const short = openDatabaseStores(ctx.config.databaseUrl, { statementTimeoutMs: 300 });
  const logs = capturingLogger();
  const holder = await ctx.runtime.pool.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE jobs IN ACCESS EXCLUSIVE MODE');
    const res = await request(createApp({ ...ctx.runtime, db: short.db, pool: short.pool, logger: logs.logger })).get(`/v1/jobs/${job.id}`).set(auth);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
    const entries = logs.entries();
    expect(entries.filter((e) => e.level === 'error')).toEqual([]);
    expect(entries).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'dependency unavailable', route: '/v1/jobs/:id' }));
  } finally {
    await holder.query('ROLLBACK');
    holder.release();
    await short.close();
  }
});

describe('/readyz while Postgres cannot be reached', () => {
  it.each([
    ['a host name that does not resolve', () => 'postgresql://postgres@pg-internal.invalid:5432/cronsvc', ['pg-internal', 'ENOTFOUND', 'getaddrinfo']],
    ['an address that refuses connections', () => `postgresql://postgres@127.0.0.1:${deadPort}/cronsvc`, ['127.0.0.1', String(deadPort), 'ECONNREFUSED']],
  ])('says "unreachable" for %s, never the host, the address or the driver\'s words', async (_case, url, secrets) => {
    const logs = capturingLogger();
    const runtime = createRuntime(loadConfig({ ...ctx.env, DATABASE_URL: url() }), logs.logger);
    try {
      const res = await request(createApp(runtime)).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'not_ready', checks: { database: 'fail: unreachable', queues: 'ok', migrations: 'fail: unreachable' } });
      for (const secret of secrets) expect(res.text).not.toContain(secret);
      // The operator finds the driver's own words in the log.
      expect(logs.lines.join('')).toMatch(/not ready/);
    } finally {
      await runtime.close();
    }
  });
});

it('accepts a job while Redis is down and runs it once the queue is rebuilt from Postgres', async () => {
  const { auth, id: workspaceId } = w.workspace;
  const noRedis = runtimeWith({ REDIS_URL: `redis://127.0.0.1:${deadPort}` });
  try {
    const res = await request(createApp(noRedis))
      .post('/v1/jobs')
      .set(auth)
      .send(aOneTimeJob({ request: { url: target.url } }));
    expect(res.status).toBe(201);
    const exe = await ctx.runtime.db.execution.findFirstOrThrow({ where: { jobId: res.body.id } });
    expect(exe.status).toBe('queued');

    const executor = startExecutor(ctx.runtime);
    try {
      expect(await reconcileQueue(ctx.runtime, { dueBefore: new Date() })).toBeGreaterThanOrEqual(1);
      await waitFor(async () => (await getExecution(ctx.runtime, workspaceId, exe.id)).status === 'succeeded', { what: 'the execution to run' });
      expect(target.received).toHaveLength(1);
    } finally {
      await executor.stop();
    }
  } finally {
    await noRedis.close();
  }
});
