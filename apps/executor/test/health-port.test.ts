import { freePort } from '@cronsvc/core';
import { ADMIN_TOKEN, createTestContext, parsePrometheus, waitFor, type ChildApp, type TestContext } from '@cronsvc/core/testing';

// A worker started on its own (as `npm run start -w apps/<name>` does) serves /healthz, /readyz
// and /metrics on HEALTH_PORT, so an orchestrator can probe it and Prometheus scrape it.
let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe.each(['executor', 'scheduler'] as const)('the %s started alone with HEALTH_PORT', (name) => {
  let app: ChildApp;
  let base: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = ctx.spawnApp(name, { HEALTH_PORT: String(port), LOG_LEVEL: 'info' });
    await waitFor(async () => (await fetch(`${base}/healthz`).catch(() => null))?.ok, { timeoutMs: 60_000, what: () => `the health port (output: ${app.output()})` });
  });
  afterAll(() => app.stop());

  it('answers health and readiness, with its own heartbeat as a check', async () => {
    const health = await fetch(`${base}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', queues: 'ok', migrations: 'ok', [name]: 'ok' } });
    expect(app.output()).toContain(`health port: http://localhost:${new URL(base).port}/healthz, /readyz and /metrics`);
  });

  it('serves its own metrics behind the admin token', async () => {
    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    const res = await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);
    const scrape = parsePrometheus(await res.text());
    expect(scrape.value('cronsvc_processes', { app: name })).toBe(1);
    expect(scrape.value('cronsvc_processes', { app: 'api' })).toBeUndefined();
    expect(scrape.types.get('cronsvc_attempts_total')).toBe('counter');
    expect(scrape.value('process_resident_memory_bytes')).toBeGreaterThan(0);
    // The service-wide gauges are the API's.
    expect(scrape.types.has('cronsvc_dlq_executions')).toBe(false);
  });

  it('answers 404 elsewhere and 405 to other methods', async () => {
    expect((await fetch(`${base}/v1/jobs`)).status).toBe(404);
    const post = await fetch(`${base}/healthz`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});
