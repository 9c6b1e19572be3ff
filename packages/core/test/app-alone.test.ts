import { freePort } from '../src/db/local-host.js';
import { parsePrometheus } from './prometheus-text.js';
import { ADMIN_TOKEN, createTestContext, type ChildApp, type TestContext } from './test-context.js';
import { waitFor } from './wait-for.js';

// Each app started on its own, as `npm run start -w apps/<name>` does: it says where it is, and a
// worker serves /healthz, /readyz and /metrics on HEALTH_PORT, so an orchestrator can probe it
// and Prometheus scrape it.
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

describe('the API started alone', () => {
  it('says where it is, what is off, and warns when the target guard is off', async () => {
    const port = await freePort();
    const app = ctx.spawnApp('api', { PORT: String(port), LOG_LEVEL: 'info', ADMIN_TOKEN: '', PUBLIC_BASE_URL: 'https://cron.example.com' });
    try {
      await waitFor(() => /admin API and \/metrics: off/.test(app.output()), { timeoutMs: 60_000, what: () => `the start-up lines (output: ${app.output()})` });
      const output = app.output();
      expect(output).toContain(`API: http://localhost:${port} (listening on 0.0.0.0:${port}; public address https://cron.example.com)`);
      expect(output).toContain(`API reference: http://localhost:${port}/docs`);
      expect(output).toContain(`web console: http://localhost:${port}/console`);
      expect(output).toContain('queue dashboard: off (set ADMIN_TOKEN to enable it)');
      expect(output).toMatch(/warn \[api\] ALLOW_PRIVATE_TARGETS=true/);
      expect(output).toMatch(/database: postgresql:\/\/postgres@127\.0\.0\.1:5432\//);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    } finally {
      await app.stop();
    }
  });
});
