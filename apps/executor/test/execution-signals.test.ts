import request from 'supertest';
import { createApp } from '@cronsvc/api';
import { processRegistry } from '@cronsvc/core';
import { aCronJob, answerInTurn, aOneTimeJob, aWorkflow, capturingLogger, httpStep, parsePrometheus, waitFor, type CapturedLogs, type TargetServer, type TestContext } from '@cronsvc/core/testing';
import { startExecutor, type Executor } from '../src/executor.js';
import { useExecutorFixture } from './executor-fixture.js';

// What the executor tells an operator about the executions it runs: the metrics it counts and
// the one warning a failed execution gets, both tied to the request that created it.
let ctx: TestContext;
let target: TargetServer;
let logs: CapturedLogs;
let executor: Executor;
let api: ReturnType<typeof createApp>;
let auth: { Authorization: string };

// Registered before the fixture's hooks, so the executor stops before the context closes.
afterAll(() => executor?.stop());
// The executor is started here, on a logger the tests read.
const fixture = useExecutorFixture({ executor: false });
beforeAll(() => {
  ({ ctx, target, workspace: { auth } } = fixture);
  logs = capturingLogger(true, { level: 'debug', service: 'executor' });
  executor = startExecutor({ ...ctx.runtime, logger: logs.logger });
  api = createApp(ctx.runtime);
});

async function metrics() {
  return parsePrometheus(await processRegistry.metrics());
}

async function finished(executionId: string): Promise<void> {
  await waitFor(async () => {
    const res = await request(api).get(`/v1/executions/${executionId}`).set(auth);
    return res.body.status === 'failed' || res.body.status === 'succeeded';
  }, { timeoutMs: 20_000, what: `execution ${executionId} to finish` });
}

it('logs one warning for a failed execution, with job, error class and the request that created it, and counts it', async () => {
  answerInTurn(target, [500], 'down');
  const before = await metrics();
  const job = await request(api)
    .post('/v1/jobs')
    .set(auth)
    .send(aCronJob({ name: 'failing', request: { url: `${target.url}/fail` }, retry_policy: { max_attempts: 2 } }))
    .expect(201);
  const run = await request(api).post(`/v1/jobs/${job.body.id}/run-now`).set(auth).set('X-Request-Id', 'req-run-now-7').expect(202);
  await finished(run.body.id);

  const warnings = logs.entries().filter((e) => e.msg === 'execution failed');
  expect(warnings).toEqual([
    expect.objectContaining({ level: 'warn', service: 'executor', jobId: job.body.id, executionId: run.body.id, errorClass: 'HTTP_5XX', request_id: 'req-run-now-7' }),
  ]);
  // Every line the executor wrote about this execution carries the creator's request id.
  const about = logs.entries().filter((e) => e.executionId === run.body.id);
  expect(about.length).toBeGreaterThanOrEqual(3);
  expect(about.every((e) => e.request_id === 'req-run-now-7')).toBe(true);

  const after = await metrics();
  const delta = (name: string, labels?: Record<string, string>) => (after.value(name, labels) ?? 0) - (before.value(name, labels) ?? 0);
  expect(delta('cronsvc_attempts_total', { status: 'HTTP_ERROR' })).toBe(2);
  expect(delta('cronsvc_attempt_duration_seconds_count')).toBe(2);
  expect(delta('cronsvc_executions_finished_total', { status: 'failed' })).toBe(1);
  expect(delta('cronsvc_executions_finished_total', { status: 'succeeded' })).toBe(0);
  // One fire lag per execution: its first request only.
  expect(delta('cronsvc_fire_lag_seconds_count')).toBe(1);
});

it('counts a success without a warning, and a failed workflow step like a failed request', async () => {
  target.handle((req, res) => {
    res.statusCode = req.url === '/ok' ? 200 : 503;
    res.end();
  });
  const before = await metrics();
  const ok = await request(api).post('/v1/jobs').set(auth).send(aOneTimeJob({ name: 'fine', request: { url: `${target.url}/ok` } })).expect(201);
  const flow = await request(api)
    .post('/v1/jobs')
    .set(auth)
    .send(aWorkflow([httpStep('first', `${target.url}/ok`), httpStep('second', `${target.url}/broken`)], { retry_policy: { max_attempts: 1 } }))
    .expect(201);
  const run = await request(api).post(`/v1/jobs/${flow.body.id}/run-now`).set(auth).set('X-Request-Id', 'req-flow-1').expect(202);
  await finished(run.body.id);
  await waitFor(async () => (await request(api).get(`/v1/jobs/${ok.body.id}/executions`).set(auth)).body.data[0]?.status === 'succeeded', { what: 'the one_time job' });

  const after = await metrics();
  const delta = (name: string, labels?: Record<string, string>) => (after.value(name, labels) ?? 0) - (before.value(name, labels) ?? 0);
  expect(delta('cronsvc_executions_finished_total', { status: 'succeeded' })).toBe(1);
  expect(delta('cronsvc_executions_finished_total', { status: 'failed' })).toBe(1);
  expect(delta('cronsvc_attempts_total', { status: 'SUCCESS' })).toBe(2);
  expect(delta('cronsvc_attempts_total', { status: 'HTTP_ERROR' })).toBe(1);
  expect(delta('cronsvc_fire_lag_seconds_count')).toBe(2);
  const warnings = logs.entries().filter((e) => e.msg === 'execution failed' && e.executionId === run.body.id);
  expect(warnings).toEqual([expect.objectContaining({ jobId: flow.body.id, errorClass: 'HTTP_5XX', request_id: 'req-flow-1' })]);
  expect(logs.entries().filter((e) => e.msg === 'execution failed' && e.jobId === ok.body.id)).toEqual([]);
});
