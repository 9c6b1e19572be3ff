import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { alive, aOneTimeJob, aScheduledJob, descendantPids, spawnProcess, startTargetServer, waitFor, repoRoot, type ChildApp, type TargetServer } from '@cronsvc/core/testing';

// `npm start` on a machine with only Node.js: the embedded PostgreSQL holds the data and the
// queues (BullMQ's PostgreSQL backend), in a data directory that survives a restart.

const ADMIN = 'embedded-test-admin';
const key = randomBytes(32).toString('base64');
let dir: string;
let target: TargetServer;
const started: ChildApp[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cronsvc-embedded-'));
  // Run as root, the server runs as the postgres user, which must reach its data directory.
  await chmod(dir, 0o755);
  target = await startTargetServer();
});
afterAll(async () => {
  await Promise.all(started.map((app) => app.kill('SIGKILL').catch(() => undefined)));
  // The server has a process group of its own: after a failed test, stop it by its pid.
  const pid = Number((await readFile(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]);
  if (pid > 0 && alive(pid)) process.kill(pid, 'SIGQUIT');
  await target.close();
  await rm(dir, { recursive: true, force: true });
});

function startService(port: number): ChildApp {
  const app = spawnProcess(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'scripts/start.ts')], {
    DATABASE_URL: 'embedded',
    QUEUE_BACKEND: 'postgres',
    EMBEDDED_PG_DIR: path.join(dir, 'pg'),
    PORT: String(port),
    ADMIN_TOKEN: ADMIN,
    ALLOW_PRIVATE_TARGETS: 'true',
    SECRETS_ENCRYPTION_KEY: key,
    LOG_LEVEL: 'info',
  });
  started.push(app);
  return app;
}

/**
 * SIGINT to the supervisor (`group`: to its whole process group, as Ctrl-C in a terminal does),
 * and every process it started, the embedded server too, must be gone after a clean stop.
 */
async function stopService(app: ChildApp, group: boolean): Promise<void> {
  const pids = await descendantPids(app.child.pid!);
  expect(pids.length).toBeGreaterThanOrEqual(5); // four apps and the PostgreSQL server at least
  if (group) process.kill(-app.child.pid!, 'SIGINT');
  else app.child.kill('SIGINT');
  expect(await app.exited).toBe(0);
  await waitFor(() => pids.every((pid) => !alive(pid)), { timeoutMs: 15_000, what: 'every process to exit' });
  expect(existsSync(path.join(dir, 'pg', 'postmaster.pid'))).toBe(false);
}

it('runs on the embedded PostgreSQL with the queues there too, and keeps data and schedules across a restart', async () => {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const base = `http://127.0.0.1:${port}`;
  const api = (pathname: string, token: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(`${base}${pathname}`, {
      method: init.method ?? 'GET',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });

  let app = startService(port);
  await waitFor(async () => (await fetch(`${base}/healthz`)).ok, { timeoutMs: 180_000, what: () => `the API (output: ${app.output()})` });
  expect(app.output()).toMatch(/database: embedded PostgreSQL on 127\.0\.0\.1:\d+, data in .*cronsvc-embedded-.*\/pg \(set DATABASE_URL/);
  expect(app.output()).toMatch(/queues: PostgreSQL, BullMQ's PostgreSQL backend/);

  const created = await api('/admin/v1/workspaces', ADMIN, { method: 'POST', body: { name: 'embedded' } });
  expect(created.status).toBe(201);
  const { api_token: token } = (await created.json()) as { api_token: string };
  const once = await api('/v1/jobs', token, { method: 'POST', body: aOneTimeJob({ name: 'once', request: { url: `${target.url}/once` } }) });
  expect(once.status).toBe(201);
  const onceJob = (await once.json()) as { id: string };
  const succeeded = async (jobId: string) => {
    const list = (await (await api(`/v1/jobs/${jobId}/executions`, token)).json()) as { data: { status: string; scheduled_for: string; started_at: string }[] };
    return list.data[0]?.status === 'succeeded' ? list.data[0] : undefined;
  };
  await waitFor(() => succeeded(onceJob.id), { timeoutMs: 30_000, what: 'the one_time job to run' });
  expect(target.received.map((r) => r.url)).toEqual(['/once']);

  // Due only after the restart below: it must fire from what the data directory kept.
  const runAt = new Date(Date.now() + 30_000);
  const later = await api('/v1/jobs', token, {
    method: 'POST',
    body: aScheduledJob({ name: 'later', schedule: { run_at: runAt.toISOString() }, request: { url: `${target.url}/later` } }),
  });
  expect(later.status).toBe(201);
  const laterJob = (await later.json()) as { id: string };

  await stopService(app, false);
  expect(Date.now()).toBeLessThan(runAt.getTime());
  expect(app.output()).not.toMatch(/\berror\b/i);

  app = startService(port);
  await waitFor(async () => (await fetch(`${base}/healthz`)).ok, { timeoutMs: 180_000, what: () => `the API after the restart (output: ${app.output()})` });
  // The workspace, its token, the jobs and the first execution are all still there.
  const jobs = (await (await api('/v1/jobs', token)).json()) as { data: { id: string; name: string }[] };
  expect(jobs.data.map((j) => j.name).sort()).toEqual(['later', 'once']);
  expect(await succeeded(onceJob.id)).toBeDefined();
  const fired = await waitFor(() => succeeded(laterJob.id), { timeoutMs: 90_000, what: 'the scheduled job to fire after the restart' });
  expect(fired.scheduled_for).toBe(runAt.toISOString());
  expect(new Date(fired.started_at).getTime()).toBeGreaterThanOrEqual(runAt.getTime());
  expect(target.received.map((r) => r.url)).toEqual(['/once', '/later']);

  // Ctrl-C while an attempt is in flight: the apps finish it, so the server must outlive them.
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => (release = r));
  target.handle(async (req, res) => {
    if (req.url === '/slow') await held;
    res.end('ok');
  });
  const slow = await api('/v1/jobs', token, { method: 'POST', body: aOneTimeJob({ name: 'slow', request: { url: `${target.url}/slow` } }) });
  expect(slow.status).toBe(201);
  await waitFor(() => target.received.some((r) => r.url === '/slow'), { timeoutMs: 30_000, what: 'the slow request to arrive' });
  const [pidLine, , , portLine] = (await readFile(path.join(dir, 'pg', 'postmaster.pid'), 'utf8')).split('\n');
  const postmaster = Number(pidLine);
  const password = (await readFile(path.join(dir, 'pg', 'cronsvc-password'), 'utf8')).trim();
  const stopped = stopService(app, true);
  await waitFor(() => /\[executor\] stopping/.test(app.output()), { what: 'the executor to start stopping' });
  // Still serving, not shutting down: a new connection is accepted.
  const client = new pg.Client({ host: '127.0.0.1', port: Number(portLine), user: 'postgres', password, database: 'postgres' });
  await client.connect();
  await client.end();
  release();
  await stopped;
  expect(alive(postmaster)).toBe(false);
  expect(app.output()).toMatch(/embedded PostgreSQL stopped/);
  expect(app.output()).not.toMatch(/\berror\b/i);
}, 480_000);
