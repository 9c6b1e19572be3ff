import request from 'supertest';
import { createRuntime, getExecution, loadConfig, reconcileQueue, serviceLogger, type Runtime } from '@cronsvc/core';
import { aOneTimeJob, closedPort, useTargetServer, useWorkspace, waitFor, type TestContext } from '@cronsvc/core/testing';
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
