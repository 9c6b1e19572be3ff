import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { aOneTimeJob, descendantPids, parsePrometheus, startService, startTargetServer, waitFor, type ServiceProcess, type TargetServer } from '@cronsvc/core/testing';

// Under `npm start` the API answers for every process of the supervisor: one scrape of /metrics
// covers them all, and /readyz follows each worker, as an operator sees it.

const ADMIN = 'operating-admin-token';
const TOKEN = 'csk_operating_test_token';
let service: ServiceProcess;
let target: TargetServer;

beforeAll(async () => {
  target = await startTargetServer();
  service = await startService({ ADMIN_TOKEN: ADMIN, BOOTSTRAP_API_TOKEN: TOKEN, ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'info' });
});
afterAll(async () => {
  await service?.close();
  await target?.close();
});

async function readiness(): Promise<{ status: number; body: { status: string; checks: Record<string, string> } }> {
  const res = await fetch(`${service.base}/readyz`);
  return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, string> } };
}

async function appPid(name: string): Promise<number | undefined> {
  for (const pid of await descendantPids(service.app.child.pid!)) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(`apps/${name}/src/main.ts`)) return pid;
  }
  return undefined;
}

it('says where everything is when it starts', async () => {
  const port = new URL(service.base).port;
  await waitFor(() => /web console/.test(service.app.output()), { timeoutMs: 90_000, what: () => `the start-up lines (output: ${service.app.output()})` });
  const output = service.app.output();
  expect(output).toContain(`API: http://localhost:${port} (listening on 0.0.0.0:${port})`);
  expect(output).toContain(`API reference: http://localhost:${port}/docs`);
  expect(output).toContain(`web console: http://localhost:${port}/console`);
  expect(output).toContain(`queue dashboard: http://localhost:${port}/admin/queues`);
  expect(output).toMatch(/admin API: on at .*\/admin\/v1; Prometheus metrics at .*\/metrics/);
  expect(output).toMatch(/database: postgresql:\/\/postgres@127\.0\.0\.1:5432\/cronsvc_test_/);
  expect(output).toMatch(/queues: Redis at redis:\/\//);
  expect(output).toMatch(/warn \[supervisor\] ALLOW_PRIVATE_TARGETS=true/);
});

it('is ready once every worker beats, and one scrape covers every process', async () => {
  const ready = await waitFor(async () => {
    const r = await readiness().catch(() => null);
    return r?.status === 200 ? r : undefined;
  }, { timeoutMs: 90_000, what: () => `/readyz to answer 200 (output: ${service.app.output()})` });
  expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok', queues: 'ok', migrations: 'ok', scheduler: 'ok', executor: 'ok', notifier: 'ok' } });

  const auth = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };
  const created = await fetch(`${service.base}/v1/jobs`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify(aOneTimeJob({ name: 'scraped', request: { url: `${target.url}/hello` }, on_success_url: `${target.url}/callback` })),
  });
  expect(created.status).toBe(201);
  await waitFor(() => target.received.some((r) => r.url === '/callback'), { timeoutMs: 30_000, what: 'the callback after the execution' });

  const scrape = await waitFor(async () => {
    const res = await fetch(`${service.base}/metrics`, { headers: { Authorization: `Bearer ${ADMIN}` } });
    expect(res.status).toBe(200);
    const parsed = parsePrometheus(await res.text());
    return (parsed.value('cronsvc_deliveries_total', { status: 'sent' }) ?? 0) >= 1 ? parsed : undefined;
  }, { timeoutMs: 15_000, what: 'the notifier to count its delivery' });
  for (const app of ['supervisor', 'api', 'scheduler', 'executor', 'notifier']) expect([app, scrape.value('cronsvc_processes', { app })]).toEqual([app, 1]);
  // Each family below is counted by one process only: the executor, the notifier, the API.
  expect(scrape.value('cronsvc_attempts_total', { status: 'SUCCESS' })).toBe(1);
  expect(scrape.value('cronsvc_executions_finished_total', { status: 'succeeded' })).toBe(1);
  expect(scrape.value('cronsvc_fire_lag_seconds_count')).toBe(1);
  expect(scrape.value('cronsvc_http_requests_total', { method: 'POST', route: '/v1/jobs', status_code: '201' })).toBe(1);
  expect(scrape.value('cronsvc_ready')).toBe(1);
  expect(scrape.value('process_resident_memory_bytes')).toBeGreaterThan(0);
});

it('reports a worker that dies as not ready until the supervisor has it running again', async () => {
  const executor = await appPid('executor');
  expect(executor).toBeDefined();
  process.kill(executor!, 'SIGKILL');
  const down = await waitFor(async () => {
    const r = await readiness();
    return r.status === 503 ? r : undefined;
  }, { timeoutMs: 10_000, intervalMs: 20, what: 'readiness to report the dead executor' });
  expect(down.body.status).toBe('not_ready');
  expect(down.body.checks).toMatchObject({ database: 'ok', queues: 'ok', scheduler: 'ok', notifier: 'ok', executor: 'fail: not running' });

  await waitFor(async () => (await readiness()).status === 200, { timeoutMs: 60_000, what: () => `readiness after the restart (output: ${service.app.output()})` });
  const restarted = await appPid('executor');
  expect(restarted).toBeDefined();
  expect(restarted).not.toBe(executor);
});

it('stops cleanly on SIGINT and leaves no heartbeat behind', async () => {
  service.app.child.kill('SIGINT');
  expect(await service.app.exited).toBe(0);
  const client = new pg.Client({ connectionString: service.databaseUrl });
  await client.connect();
  try {
    expect((await client.query('SELECT kind FROM workers')).rows).toEqual([]);
  } finally {
    await client.end();
  }
});

describe('with ALL_IN_ONE=1', () => {
  let single: ServiceProcess;
  beforeAll(async () => {
    single = await startService({ ALL_IN_ONE: '1', ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' });
  });
  afterAll(() => single?.close());

  it('reports every worker of its one process, and scrapes them all', async () => {
    const ready = await waitFor(async () => {
      const res = await fetch(`${single.base}/readyz`).catch(() => null);
      return res?.status === 200 ? ((await res.json()) as { checks: Record<string, string> }) : undefined;
    }, { timeoutMs: 90_000, what: () => `/readyz (output: ${single.app.output()})` });
    expect(Object.keys(ready.checks).sort()).toEqual(['database', 'executor', 'migrations', 'notifier', 'queues', 'scheduler']);
    const scrape = parsePrometheus(await (await fetch(`${single.base}/metrics`, { headers: { Authorization: `Bearer ${ADMIN}` } })).text());
    for (const app of ['api', 'scheduler', 'executor', 'notifier']) expect([app, scrape.value('cronsvc_processes', { app })]).toEqual([app, 1]);
    expect(single.app.output()).toContain('web console: http://localhost:');
    single.app.child.kill('SIGINT');
    expect(await single.app.exited).toBe(0);
  });
});
