import request from 'supertest';
import { executionRow } from '@cronsvc/core';
import { createTestContext, startTargetServer, waitFor, type TargetServer, type TestContext } from '@cronsvc/core/testing';
import { startExecutor, type Executor } from '@cronsvc/executor';
import { createApp } from '../src/app.js';

let ctx: TestContext;
let app: ReturnType<typeof createApp>;
let target: TargetServer;
let executor: Executor;
let workspaceId: string;
let auth: { Authorization: string };

beforeAll(async () => {
  ctx = await createTestContext();
  app = createApp(ctx.runtime);
  target = await startTargetServer();
  // /broken answers 500, every other path 200.
  target.handle((req, res) => {
    res.statusCode = req.url.startsWith('/broken') ? 500 : 200;
    res.end(String(res.statusCode));
  });
  executor = startExecutor(ctx.runtime);
  const ws = await ctx.workspace();
  workspaceId = ws.id;
  auth = { Authorization: `Bearer ${ws.token}` };
});
afterAll(async () => {
  await executor.stop();
  await target.close();
  await ctx.close();
});

const get = (path: string) => request(app).get(path).set(auth);
const post = (path: string, body?: object) => request(app).post(path).set(auth).send(body);
const replay = (id: string) => post(`/v1/executions/${id}/replay`);

async function cronJob(path: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await post('/v1/jobs', { name: `job ${path}`, kind: 'cron', schedule: { cron: '0 3 1 1 *' }, request: { url: `${target.url}${path}` }, ...extra });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function finished(id: string) {
  return waitFor(
    async () => {
      const res = await get(`/v1/executions/${id}`);
      return ['succeeded', 'failed'].includes(res.body.status) ? res.body : undefined;
    },
    { what: `execution ${id} to finish` },
  );
}

async function runOnce(jobId: string) {
  const run = await post(`/v1/jobs/${jobId}/run-now`);
  expect(run.status).toBe(202);
  return finished(run.body.id);
}

describe('POST /v1/executions/:id/replay', () => {
  it("replays a succeeded execution with the job's current definition and leaves the original unchanged", async () => {
    const jobId = await cronJob('/v1');
    const original = await runOnce(jobId);
    expect(original.status).toBe('succeeded');
    const edited = await request(app).patch(`/v1/jobs/${jobId}`).set(auth).send({ request: { url: `${target.url}/v2`, headers: { 'X-Version': '2' } } });
    expect(edited.status).toBe(200);

    const before = Date.now();
    const res = await replay(original.id);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ source: 'replay', status: 'queued', replay_of_id: original.id, job_id: jobId, dead_lettered_at: null });
    expect(res.body.id).not.toBe(original.id);
    expect(new Date(res.body.scheduled_for).getTime()).toBeGreaterThanOrEqual(before - 5);
    expect(new Date(res.body.scheduled_for).getTime()).toBeLessThanOrEqual(Date.now());

    expect((await finished(res.body.id)).status).toBe('succeeded');
    const sent = target.received.find((r) => r.headers['x-cron-service-execution-id'] === res.body.id);
    expect(sent).toMatchObject({ url: '/v2', headers: expect.objectContaining({ 'x-version': '2' }) });
    expect((await get(`/v1/executions/${original.id}`)).body).toEqual(original);
  });

  it('points a replay of a replay at the replay it repeats', async () => {
    const original = await runOnce(await cronJob('/chain'));
    const first = (await replay(original.id)).body;
    await finished(first.id);
    const second = await replay(first.id);
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({ source: 'replay', replay_of_id: first.id });
  });

  it('replays a dead-lettered execution without taking it out of the DLQ', async () => {
    const failed = await runOnce(await cronJob('/broken', { retry_policy: { max_attempts: 1 } }));
    expect(failed).toMatchObject({ status: 'failed', dead_lettered_at: expect.any(String) });

    const res = await replay(failed.id);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ source: 'replay', replay_of_id: failed.id });
    expect((await get(`/v1/executions/${failed.id}`)).body.dead_lettered_at).toBe(failed.dead_lettered_at);
    expect((await get('/v1/dlq')).body.data.map((e: { id: string }) => e.id)).toContain(failed.id);
  });

  it('replays an execution that has not run yet, which stays queued', async () => {
    const jobId = await cronJob('/pending');
    // Written straight to Postgres and never queued, so the executor leaves it alone.
    const pending = await ctx.runtime.db.execution.create({
      data: executionRow({ workspaceId, jobId, jobName: 'job /pending', source: 'manual', scheduledFor: new Date(Date.now() + 3600_000) }),
    });

    const res = await replay(pending.id);
    expect(res.status).toBe(202);
    expect((await finished(res.body.id)).status).toBe('succeeded');
    expect((await get(`/v1/executions/${pending.id}`)).body).toMatchObject({ status: 'queued', attempt_count: 0 });
  });

  it("answers 404 for an unknown execution and for another workspace's, creating nothing", async () => {
    const stranger = await ctx.workspace('stranger');
    const theirJob = await request(app)
      .post('/v1/jobs')
      .set({ Authorization: `Bearer ${stranger.token}` })
      .send({ name: 'theirs', kind: 'cron', schedule: { cron: '0 3 1 1 *' }, request: { url: target.url } });
    const theirs = await request(app).post(`/v1/jobs/${theirJob.body.id}/run-now`).set({ Authorization: `Bearer ${stranger.token}` });
    const count = await ctx.runtime.db.execution.count();

    for (const id of ['exe_unknown', theirs.body.id]) {
      const res = await replay(id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'not_found', message: 'execution not found' } });
    }
    expect(await ctx.runtime.db.execution.count()).toBe(count);
  });
});
