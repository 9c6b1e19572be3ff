import request from 'supertest';
import { executionRow } from '@cronsvc/core';
import { aCronJob, type TargetServer, type TestContext } from '@cronsvc/core/testing';
import type { createApp } from '../src/app.js';
import { useWorkflowFixture } from './workflow-fixture.js';

let ctx: TestContext;
let app: ReturnType<typeof createApp>;
let target: TargetServer;
let workspaceId: string;
let auth: { Authorization: string };

const f = useWorkflowFixture();
beforeAll(() => ({ ctx, app, target, workspaceId, auth } = f));
beforeEach(() => {
  // /broken answers 500, every other path 200.
  target.handle((req, res) => {
    res.statusCode = req.url.startsWith('/broken') ? 500 : 200;
    res.end(String(res.statusCode));
  });
});

const replay = (id: string) => f.post(`/v1/executions/${id}/replay`);
const finished = (id: string) => f.until(id, 'succeeded', 'failed');

/** A job calling `path` on the target, created through the API; its id. */
const jobTo = async (path: string, extra: Record<string, unknown> = {}) => (await f.createJob(aCronJob({ name: `job ${path}`, request: { url: `${target.url}${path}` }, ...extra }))).id as string;

async function runOnce(jobId: string) {
  return finished(await f.runNow(jobId));
}

describe('POST /v1/executions/:id/replay', () => {
  it("replays a succeeded execution with the job's current definition and leaves the original unchanged", async () => {
    const jobId = await jobTo('/v1');
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
    expect((await f.get(`/v1/executions/${original.id}`)).body).toEqual(original);
  });

  it('points a replay of a replay at the replay it repeats', async () => {
    const original = await runOnce(await jobTo('/chain'));
    const first = (await replay(original.id)).body;
    await finished(first.id);
    const second = await replay(first.id);
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({ source: 'replay', replay_of_id: first.id });
  });

  it('replays a dead-lettered execution without taking it out of the DLQ', async () => {
    const failed = await runOnce(await jobTo('/broken', { retry_policy: { max_attempts: 1 } }));
    expect(failed).toMatchObject({ status: 'failed', dead_lettered_at: expect.any(String) });

    const res = await replay(failed.id);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ source: 'replay', replay_of_id: failed.id });
    expect((await f.get(`/v1/executions/${failed.id}`)).body.dead_lettered_at).toBe(failed.dead_lettered_at);
    expect((await f.get('/v1/dlq')).body.data.map((e: { id: string }) => e.id)).toContain(failed.id);
  });

  it('replays an execution that has not run yet, which stays queued', async () => {
    const jobId = await jobTo('/pending');
    // Written straight to Postgres and never queued, so the executor leaves it alone.
    const pending = await ctx.runtime.db.execution.create({
      data: executionRow({ workspaceId, jobId, jobName: 'job /pending', source: 'manual', scheduledFor: new Date(Date.now() + 3600_000) }),
    });

    const res = await replay(pending.id);
    expect(res.status).toBe(202);
    expect((await finished(res.body.id)).status).toBe('succeeded');
    expect((await f.get(`/v1/executions/${pending.id}`)).body).toMatchObject({ status: 'queued', attempt_count: 0 });
  });

  it("answers 404 for an unknown execution and for another workspace's, creating nothing", async () => {
    const stranger = await ctx.workspace('stranger');
    const theirJob = await request(app).post('/v1/jobs').set(stranger.auth).send(aCronJob({ request: { url: target.url } }));
    const theirs = await request(app).post(`/v1/jobs/${theirJob.body.id}/run-now`).set(stranger.auth);
    const count = await ctx.runtime.db.execution.count();

    for (const id of ['exe_unknown', theirs.body.id]) {
      const res = await replay(id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'not_found', message: 'execution not found' } });
    }
    expect(await ctx.runtime.db.execution.count()).toBe(count);
  });
});
