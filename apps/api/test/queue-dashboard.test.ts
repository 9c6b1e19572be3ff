import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import request from 'supertest';
import { ADMIN_TOKEN, createTestContext, type TestContext } from '@cronsvc/core/testing';
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
