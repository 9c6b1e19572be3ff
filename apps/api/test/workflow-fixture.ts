import request from 'supertest';
import { createTestContext, useTargetServer, waitFor, type TargetServer, type TestContext } from '@cronsvc/core/testing';
import { startExecutor, type Executor } from '@cronsvc/executor';
import { startNotifier, type Notifier } from '@cronsvc/notifier';
import { startScheduler, type Scheduler } from '@cronsvc/scheduler';
import { createApp } from '../src/app.js';

export interface WorkflowFixture {
  ctx: TestContext;
  app: ReturnType<typeof createApp>;
  target: TargetServer;
  executor: Executor;
  workspaceId: string;
  /** The workspace's API token. */
  token: string;
  auth: { Authorization: string };
  get(path: string): request.Test;
  post(path: string, body?: unknown): request.Test;
  patch(path: string, body: unknown): request.Test;
  /** Creates a job through the API and returns its body (fails the test unless 201). */
  createJob(body: unknown): Promise<Record<string, any>>;
  /** Runs a job now and returns the new execution's id. */
  runNow(jobId: string): Promise<string>;
  execution(id: string): Promise<Record<string, any>>;
  /** Waits until the execution's status is one of `statuses` and returns it. */
  until(id: string, ...statuses: string[]): Promise<Record<string, any>>;
}

/**
 * The hooks of the step-driven tests: a database and Redis prefix of the file's own, a local
 * target (reset before each test), an in-process executor, the API, a workspace and its token;
 * with `scheduler` the scheduler (whose wait timers expire waits), with `notifier` the notifier
 * (which sends callbacks).
 */
export function useWorkflowFixture(options: { scheduler?: boolean; notifier?: boolean; env?: Record<string, string> } = {}): WorkflowFixture {
  const f = {} as WorkflowFixture;
  let scheduler: Scheduler | undefined;
  let notifier: Notifier | undefined;
  beforeAll(async () => {
    f.ctx = await createTestContext(options.env);
    f.executor = startExecutor(f.ctx.runtime);
    if (options.scheduler) scheduler = await startScheduler(f.ctx.runtime);
    if (options.notifier) notifier = startNotifier(f.ctx.runtime);
    f.app = createApp(f.ctx.runtime);
    const ws = await f.ctx.workspace();
    f.workspaceId = ws.id;
    f.token = ws.token;
    f.auth = ws.auth;
  });
  afterAll(async () => {
    await scheduler?.stop();
    await notifier?.stop();
    await f.executor.stop();
    await f.ctx.close();
  });
  f.target = useTargetServer();
  f.get = (path) => request(f.app).get(path).set(f.auth);
  f.post = (path, body) => request(f.app).post(path).set(f.auth).send(body as object);
  f.patch = (path, body) => request(f.app).patch(path).set(f.auth).send(body as object);
  f.createJob = async (body) => {
    const res = await f.post('/v1/jobs', body);
    if (res.status !== 201) throw new Error(`job not created (${res.status}): ${JSON.stringify(res.body)}`);
    return res.body;
  };
  f.runNow = async (jobId) => {
    const res = await f.post(`/v1/jobs/${jobId}/run-now`);
    if (res.status !== 202) throw new Error(`run-now answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body.id;
  };
  f.execution = async (id) => (await f.get(`/v1/executions/${id}`)).body;
  f.until = (id, ...statuses) =>
    waitFor(
      async () => {
        const exe = await f.execution(id);
        return statuses.includes(exe.status) ? exe : undefined;
      },
      { what: `execution ${id} to be ${statuses.join(' or ')}` },
    );
  return f;
}
