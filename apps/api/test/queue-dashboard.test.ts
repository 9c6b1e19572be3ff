import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import request from 'supertest';
import { createWorker, keepCompleted, type ExecutionPayload } from '@cronsvc/core';
import { ADMIN_TOKEN, createTestContext, waitFor, type TestContext } from '@cronsvc/core/testing';
import { createApp } from '../src/app.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

// bull-board shows the queues whichever backend holds them, the datastore included.
describe.each(['redis', 'postgres'] as const)('the queue dashboard with the queues on %s', (backend) => {
  let ctx: TestContext;
  let server: Server;
  let base: string;
  const executionId = `exe_dashboard_${backend}`;

  beforeAll(async () => {
    ctx = await createTestContext({ QUEUE_BACKEND: backend });
    server = createApp(ctx.runtime).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await ctx.runtime.queues.enqueueExecutions([{ executionId, attempt: 1, runAt: new Date(Date.now() + 600_000) }]);
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await ctx.close();
  });

  it('lists the queued attempt with its payload and reports the datastore', async () => {
    const queues = await request(base).get('/admin/queues/api/queues?activeQueue=executions&status=delayed&page=1').auth('ops', ADMIN_TOKEN);
    expect(queues.status).toBe(200);
    const executions = queues.body.queues.find((q: { name: string }) => q.name === 'executions');
    expect(executions.counts).toMatchObject({ delayed: 1, waiting: 0, active: 0 });
    expect(executions.jobs).toEqual([expect.objectContaining({ id: `${executionId}-1`, name: 'execution.run', data: expect.objectContaining({ executionId, attempt: 1 }) })]);
    const stats = await request(base).get('/admin/queues/api/redis/stats').auth('ops', ADMIN_TOKEN);
    expect(stats.status).toBe(200);
    expect(stats.body.backend).toBe(backend);
  });

  it('shows the queued attempt on the dashboard page in a browser', async () => {
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    try {
      const context = await browser.newContext({ httpCredentials: { username: 'ops', password: ADMIN_TOKEN }, viewport: { width: 1200, height: 800 } });
      const page = await context.newPage();
      await page.goto(`${base}/admin/queues/queue/executions?status=delayed`);
      await page.getByText(`${executionId}-1`).first().waitFor({ timeout: 20_000 });
      await page.screenshot({ path: path.join(tmpdir(), `cronsvc-dashboard-${backend}.png`), fullPage: true });
      expect(await page.getByText(executionId).count()).toBeGreaterThan(0);
    } finally {
      await browser.close();
    }
  });
});

describe('the queue dashboard as an operator finds it', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ QUEUE_BACKEND: 'redis' });
  });
  afterAll(() => ctx.close());

  it('forbids framing on every answer, the 401 included', async () => {
    const app = createApp(ctx.runtime);
    for (const res of [await request(app).get('/admin/queues'), await request(app).get('/admin/queues').auth('ops', ADMIN_TOKEN)]) {
      expect(res.headers['content-security-policy']).toBe("frame-ancestors 'none'");
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
  });

  it('is read-only unless QUEUE_DASHBOARD_ACTIONS is set', async () => {
    const readOnly = createApp(ctx.runtime);
    const paused = await request(readOnly).put('/admin/queues/api/queues/executions/pause').auth('ops', ADMIN_TOKEN);
    expect(paused.status).toBe(405);
    expect(await ctx.runtime.queues.dashboardQueues()[0].isPaused()).toBe(false);
    const listed = await request(readOnly).get('/admin/queues/api/queues?activeQueue=executions&status=latest&page=1').auth('ops', ADMIN_TOKEN);
    expect(listed.body.queues.every((q: { readOnlyMode: boolean }) => q.readOnlyMode)).toBe(true);

    const withActions = createApp({ ...ctx.runtime, config: { ...ctx.config, queueDashboardActions: true } });
    expect((await request(withActions).put('/admin/queues/api/queues/executions/pause').auth('ops', ADMIN_TOKEN)).status).toBe(200);
    expect(await ctx.runtime.queues.dashboardQueues()[0].isPaused()).toBe(true);
    expect((await request(withActions).put('/admin/queues/api/queues/executions/resume').auth('ops', ADMIN_TOKEN)).status).toBe(200);
  });

  it('shows recent completed and failed queue jobs', async () => {
    const app = createApp(ctx.runtime);
    const worker = createWorker<ExecutionPayload>(
      'execution',
      async (data, job) => {
        if (data.executionId === 'exe_dashboard_failing') throw new Error('claim failed: the database is down');
        keepCompleted(job);
      },
      { connection: ctx.runtime.workerConnection() },
    );
    try {
      await ctx.runtime.queues.enqueueExecutions(['exe_dashboard_done', 'exe_dashboard_failing'].map((executionId) => ({ executionId, attempt: 1, runAt: new Date() })));
      const jobsIn = async (status: string) => {
        const res = await request(app).get(`/admin/queues/api/queues?activeQueue=executions&status=${status}&page=1`).auth('ops', ADMIN_TOKEN);
        return res.body.queues.find((q: { name: string }) => q.name === 'executions').jobs.map((j: { id: string; failedReason?: string }) => [j.id, j.failedReason ?? null]);
      };
      await waitFor(async () => (await jobsIn('completed')).length === 1 && (await jobsIn('failed')).length === 1, { what: 'the finished jobs on the dashboard' });
      expect(await jobsIn('completed')).toEqual([['exe_dashboard_done-1', null]]);
      expect(await jobsIn('failed')).toEqual([['exe_dashboard_failing-1', 'claim failed: the database is down']]);
    } finally {
      await worker.close();
    }
  });
});
