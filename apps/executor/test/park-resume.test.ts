import request from 'supertest';
import { runNow } from '@cronsvc/core';
import { aJob, holdAnswers, waitFor, type TargetServer, type TestContext } from '@cronsvc/core/testing';
import { createApp } from '@cronsvc/api';
import { useExecutorFixture } from './executor-fixture.js';

let ctx: TestContext;
let target: TargetServer;
let app: ReturnType<typeof createApp>;
let auth: { Authorization: string };
let workspaceId: string;

const fixture = useExecutorFixture();
beforeAll(() => {
  ({ ctx, target, workspaceId } = fixture);
  ({ auth } = fixture.workspace);
  app = createApp(ctx.runtime);
});

const get = async (id: string) => (await request(app).get(`/v1/executions/${id}`).set(auth)).body;
const park = (id: string) => request(app).post(`/v1/executions/${id}/park`).set(auth);
const resume = (id: string) => request(app).post(`/v1/executions/${id}/resume`).set(auth);

const cappedJob = (url = target.url) => aJob(ctx.runtime, workspaceId, { name: 'capped', request: { url }, max_concurrent_executions: 1 });

it('parks a queued execution held behind max_concurrent_executions at once, and resume runs it', async () => {
  const release = holdAnswers(target);
  const job = await cappedJob();
  const first = await runNow(ctx.runtime, workspaceId, job.id);
  await waitFor(async () => (await get(first.id)).status === 'running', { what: 'the first execution to hold the slot' });
  const second = await runNow(ctx.runtime, workspaceId, job.id);
  expect((await get(second.id)).status).toBe('queued');

  const parked = await park(second.id);
  expect(parked.status).toBe(200);
  expect(parked.body).toMatchObject({ id: second.id, status: 'waiting', waiting_reason: 'manual', attempt_count: 0 });
  release();
  await waitFor(async () => (await get(first.id)).status === 'succeeded', { what: 'the first execution' });
  // The slot is free, yet a parked execution does not run.
  await new Promise((r) => setTimeout(r, 1500));
  expect((await get(second.id)).status).toBe('waiting');
  expect(target.received).toHaveLength(1);

  const resumed = await resume(second.id);
  expect(resumed.status).toBe(200);
  expect(resumed.body).toMatchObject({ status: 'queued', waiting_reason: null });
  await waitFor(async () => (await get(second.id)).status === 'succeeded', { what: 'the resumed execution' });
  expect(target.received).toHaveLength(2);
});

it('parks a running execution after its current attempt, and resume goes on with the next attempt', async () => {
  let calls = 0;
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => (release = r));
  target.handle(async (_req, res) => {
    calls += 1;
    if (calls === 1) await held;
    res.statusCode = calls === 1 ? 503 : 200;
    res.end(`call ${calls}`);
  });
  const job = await aJob(ctx.runtime, workspaceId, { request: { url: target.url } });
  const exe = await runNow(ctx.runtime, workspaceId, job.id);
  await waitFor(() => target.received.length === 1, { what: 'the first attempt to be in flight' });
  const parking = await park(exe.id);
  expect(parking.status).toBe(202);
  expect(parking.body.status).toBe('running');
  release();
  const parked = await waitFor(async () => {
    const e = await get(exe.id);
    return e.status === 'waiting' ? e : undefined;
  }, { what: 'the execution to park after its attempt' });
  expect(parked).toMatchObject({ waiting_reason: 'manual', attempt_count: 1 });
  expect(parked.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([503]);

  expect((await resume(exe.id)).status).toBe(200);
  const done = await waitFor(async () => {
    const e = await get(exe.id);
    return e.status === 'succeeded' ? e : undefined;
  }, { what: 'the resumed execution to succeed' });
  expect(done.attempts.map((a: { number: number; statusCode: number }) => [a.number, a.statusCode])).toEqual([[1, 503], [2, 200]]);
});

it('lets an attempt that ends the execution finish normally despite a park request', async () => {
  const release = holdAnswers(target, 'done');
  const job = await aJob(ctx.runtime, workspaceId, { request: { url: target.url } });
  const exe = await runNow(ctx.runtime, workspaceId, job.id);
  await waitFor(() => target.received.length === 1, { what: 'the attempt' });
  expect((await park(exe.id)).status).toBe(202);
  release();
  await waitFor(async () => (await get(exe.id)).status === 'succeeded', { what: 'the execution to finish' });
  const row = await ctx.runtime.db.execution.findUniqueOrThrow({ where: { id: exe.id } });
  expect(row.parkRequested).toBe(false);
});

it('answers 409 invalid_state for finished executions, a second park, and resuming what is not parked', async () => {
  const job = await aJob(ctx.runtime, workspaceId, { request: { url: target.url } });
  const exe = await runNow(ctx.runtime, workspaceId, job.id);
  await waitFor(async () => (await get(exe.id)).status === 'succeeded', { what: 'the execution' });
  for (const res of [await park(exe.id), await resume(exe.id)]) {
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('invalid_state');
  }
  const blocker = await cappedJob('http://127.0.0.1:1/');
  await ctx.runtime.db.job.update({ where: { id: blocker.id }, data: { state: 'paused' } });
  const waiting = await ctx.runtime.db.execution.create({
    data: { id: 'exe_parked_twice', workspaceId, jobId: blocker.id, jobName: 'capped', status: 'waiting', waitingReason: 'manual', source: 'manual', scheduledFor: new Date(), nextAttemptAt: new Date() },
  });
  expect((await park(waiting.id)).status).toBe(409);
  expect((await park('exe_missing')).status).toBe(404);
  expect((await resume('exe_missing')).status).toBe(404);
});
