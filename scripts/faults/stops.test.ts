import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '@cronsvc/core';
import {
  aOneTimeJob,
  createTestDatabase,
  deleteRedisKeys,
  groupProcesses,
  holdAnswers,
  queueEnv,
  repoRoot,
  spawnProcess,
  startTargetServer,
  uniqueName,
  waitFor,
  type ChildApp,
  type ReceivedRequest,
  type TargetServer,
  type TestDatabase,
} from '@cronsvc/core/testing';
import { faultScale } from './scale.js';

// Stopping the service as operators do (docs/RELIABILITY.md, "Stopping the service"): Ctrl-C to
// the terminal's process group, SIGHUP to it (a closed terminal), SIGTERM to the `npm start`
// process alone, a second Ctrl-C, and the same in ALL_IN_ONE mode, each with requests in flight
// to a target that answers slowly.

const IN_FLIGHT = faultScale(10, 30);
const ANSWER_MS = faultScale(2_000, 4_000);
const TOKEN = 'csk_stops_test_token';
const key = randomBytes(32).toString('base64');

let target: TargetServer;
let db: TestDatabase;
let prefix: string;
const started: ChildApp[] = [];

beforeAll(async () => {
  target = await startTargetServer();
});
beforeEach(async () => {
  db = await createTestDatabase();
  prefix = uniqueName('stops');
  target.received.length = 0;
  target.handle(async (_req, res) => {
    await new Promise((r) => setTimeout(r, ANSWER_MS));
    res.end('ok');
  });
});
afterEach(async () => {
  // By process group: after a failure, the group's leader (npm) may be gone and the rest still there.
  for (const app of started.splice(0)) {
    try {
      process.kill(-app.child.pid!, 'SIGKILL');
    } catch {
      // Nothing of it is left.
    }
  }
  await deleteRedisKeys(prefix);
  await db.drop();
});
afterAll(async () => {
  await target.close();
});

interface Service {
  app: ChildApp;
  base: string;
}

/** `npm start` (or, with `npm: false`, what it runs: node on scripts/start.ts) in a process group of its own. */
async function start(env: Record<string, string> = {}, options: { npm?: boolean; port?: number } = {}): Promise<Service> {
  const port = options.port ?? (await freePort());
  const serviceEnv = {
    DATABASE_URL: db.url,
    ...queueEnv(prefix),
    PORT: String(port),
    BOOTSTRAP_API_TOKEN: TOKEN,
    SECRETS_ENCRYPTION_KEY: key,
    ALLOW_PRIVATE_TARGETS: 'true',
    LOG_LEVEL: 'info',
    ...env,
  };
  const app = options.npm
    ? spawnProcess('npm', ['start'], serviceEnv)
    : spawnProcess(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'scripts/start.ts')], serviceEnv);
  started.push(app);
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.ok, { timeoutMs: 60_000, what: () => `the service to be ready (output: ${app.output()})` });
  return { app, base };
}

/** `n` one_time jobs calling /r/<i>; resolves once every request has reached the target. */
async function requestsInFlight(base: string, n: number): Promise<void> {
  const before = target.received.length;
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${base}/v1/jobs`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(aOneTimeJob({ name: `slow ${i}`, request: { url: `${target.url}/r/${i}` } })),
    });
    expect(res.status).toBe(201);
  }
  await waitFor(() => target.received.length - before >= n, { timeoutMs: 30_000, what: `${n} requests to reach the target` });
}

async function executions(): Promise<{ id: string; status: string; attempts: number }[]> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; status: string; attempts: number }>(
      'SELECT e.id, e.status, (SELECT count(*)::int FROM attempts a WHERE a.execution_id = e.id) AS attempts FROM executions e ORDER BY e.id',
    );
    return rows;
  } finally {
    await client.end();
  }
}

const urls = (received: ReceivedRequest[]) => received.map((r) => r.url).sort();
const expected = (n: number) => Array.from({ length: n }, (_, i) => `/r/${i}`).sort();

/** Waits until no process of the service's group is left. */
async function groupGone(app: ChildApp): Promise<void> {
  let left: string[] = [];
  await waitFor(
    async () => {
      left = (await groupProcesses(app.child.pid!)).map((p) => `${p.pid} ${p.command}`);
      return left.length === 0;
    },
    { timeoutMs: 15_000, what: () => `every process of the group to exit (left: ${left.join('; ')})` },
  );
}

it(`Ctrl-C (SIGINT to the process group) with ${IN_FLIGHT} requests in flight: each finishes once, is recorded, and the service exits 0`, async () => {
  const { app, base } = await start();
  await requestsInFlight(base, IN_FLIGHT);
  const stoppedAt = Date.now();
  process.kill(-app.child.pid!, 'SIGINT');
  await waitFor(() => /stopping, \d+ requests? in flight; waiting for them up to 30 s; press Ctrl-C again/.test(app.output()), { what: 'the notice of the stop' });
  expect(await app.exited).toBe(0);
  const stopMs = Date.now() - stoppedAt;
  await groupGone(app);
  expect(urls(target.received)).toEqual(expected(IN_FLIGHT));
  const done = await executions();
  expect(done).toHaveLength(IN_FLIGHT);
  expect(done.every((e) => e.status === 'succeeded' && e.attempts === 1)).toBe(true);
  // Ctrl-C reached each app, and the supervisor passed it on: one stop, nothing handed back.
  expect(app.output()).not.toMatch(/stopping at once|work in flight handed back|grace period is over/);
  expect(app.output()).not.toMatch(/\berror\b/i);
  console.log(`group SIGINT with ${IN_FLIGHT} requests in flight (answer after ${ANSWER_MS} ms): stopped in ${stopMs} ms`);

  // Started again, it sends nothing more, though its reconciler (every 0.5 s here) looks for lost work.
  const again = await start({ RECONCILE_INTERVAL_MS: '500' });
  await new Promise((r) => setTimeout(r, 2_000));
  expect(target.received).toHaveLength(IN_FLIGHT);
  process.kill(-again.app.child.pid!, 'SIGINT');
  expect(await again.app.exited).toBe(0);
});

it('SIGTERM to the npm process alone stops the whole service, finishing the work in flight', async () => {
  const { app, base } = await start({}, { npm: true });
  await requestsInFlight(base, 3);
  const pgid = app.child.pid!;
  expect((await groupProcesses(pgid)).length).toBeGreaterThanOrEqual(6); // npm, the supervisor and four apps
  process.kill(pgid, 'SIGTERM');
  await groupGone(app);
  const done = await executions();
  expect(done.map((e) => e.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  expect(urls(target.received)).toEqual(expected(3));
});

it(`SIGHUP to the group of \`npm start\` (a closed terminal) with ${IN_FLIGHT} requests in flight: each finishes once, is recorded, and a restart sends nothing again`, async () => {
  const port = await freePort();
  const { app, base } = await start({}, { npm: true, port });
  await requestsInFlight(base, IN_FLIGHT);
  process.kill(-app.child.pid!, 'SIGHUP');
  await groupGone(app);
  expect(urls(target.received)).toEqual(expected(IN_FLIGHT));
  const done = await executions();
  expect(done).toHaveLength(IN_FLIGHT);
  expect(done.every((e) => e.status === 'succeeded' && e.attempts === 1)).toBe(true);
  expect(app.output()).toMatch(/stopping, \d+ requests? in flight/);
  expect(app.output()).not.toMatch(/stopping at once|work in flight handed back|grace period is over/);

  const again = await start({ RECONCILE_INTERVAL_MS: '500' }, { port });
  await new Promise((r) => setTimeout(r, 2_000));
  expect(target.received).toHaveLength(IN_FLIGHT);
  process.kill(-again.app.child.pid!, 'SIGINT');
  await groupGone(again.app);
});

it('SIGTERM to the executor alone: it finishes its requests in flight, and the supervisor stops the rest and exits 0', async () => {
  const { app, base } = await start();
  await requestsInFlight(base, 3);
  const executor = (await groupProcesses(app.child.pid!)).find((p) => p.command.includes('apps/executor/'));
  expect(executor).toBeDefined();
  process.kill(executor!.pid, 'SIGTERM');
  expect(await app.exited).toBe(0);
  await groupGone(app);
  expect((await executions()).map((e) => e.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  expect(urls(target.received)).toEqual(expected(3));
  expect(app.output()).toMatch(/an app was stopped; stopping the others/);
  expect(app.output()).not.toMatch(/restarting/);
});

it('a supervisor killed outright leaves no app behind: each stops when its IPC channel closes', async () => {
  const { app } = await start();
  const apps = (await groupProcesses(app.child.pid!)).filter((p) => p.pid !== app.child.pid);
  expect(apps).toHaveLength(4);
  process.kill(app.child.pid!, 'SIGKILL');
  await groupGone(app);
  expect(app.output()).toMatch(/\[executor\] stopping.*supervisor gone/);
});

it('a second Ctrl-C after the notice exits at once with 130, and the next start runs the abandoned work under the same execution ids', async () => {
  const release = holdAnswers(target);
  const port = await freePort();
  const { app, base } = await start({}, { port });
  await requestsInFlight(base, IN_FLIGHT);
  process.kill(-app.child.pid!, 'SIGINT');
  await waitFor(() => /press Ctrl-C again/.test(app.output()), { what: 'the notice of the stop' });
  // Past the window in which a second signal counts as the same stop.
  await new Promise((r) => setTimeout(r, 1_200));
  const insistedAt = Date.now();
  process.kill(-app.child.pid!, 'SIGINT');
  expect(await app.exited).toBe(130);
  const exitMs = Date.now() - insistedAt;
  await groupGone(app);
  expect(exitMs).toBeLessThan(5_000);
  const abandoned = await executions();
  expect(abandoned.every((e) => e.status === 'running' && e.attempts === 0)).toBe(true);
  const firstIds = target.received.map((r) => r.headers['webhook-id']).sort();
  expect(firstIds).toEqual(abandoned.map((e) => e.id).sort());

  // The leases were released: the next start runs each at once, not after EXECUTION_LEASE_MS (30 s).
  release();
  const restartedAt = Date.now();
  const again = await start({}, { port });
  const done = await waitFor(
    async () => {
      const rows = await executions();
      return rows.every((e) => e.status === 'succeeded') ? rows : undefined;
    },
    { timeoutMs: 20_000, what: 'the abandoned work to run again' },
  );
  const rerunMs = Date.now() - restartedAt;
  expect(done.every((e) => e.attempts === 1)).toBe(true);
  const resent = target.received.slice(IN_FLIGHT);
  expect(resent.map((r) => r.headers['webhook-id']).sort()).toEqual(firstIds);
  console.log(`second Ctrl-C: exited 130 in ${exitMs} ms; the ${IN_FLIGHT} abandoned executions ran again ${rerunMs} ms after the restart began`);
  process.kill(-again.app.child.pid!, 'SIGINT');
  expect(await again.app.exited).toBe(0);
});

it('past STOP_GRACE_SECONDS the requests still out are handed back, the service exits 0, and the next start runs them at once', async () => {
  const release = holdAnswers(target);
  const port = await freePort();
  const { app, base } = await start({ STOP_GRACE_SECONDS: '1' }, { port });
  await requestsInFlight(base, IN_FLIGHT);
  const stoppedAt = Date.now();
  process.kill(-app.child.pid!, 'SIGINT');
  expect(await app.exited).toBe(0);
  const stopMs = Date.now() - stoppedAt;
  await groupGone(app);
  expect(app.output()).toMatch(/grace period is over/);
  expect((await executions()).every((e) => e.status === 'running' && e.attempts === 0)).toBe(true);
  release();
  const again = await start({}, { port });
  const done = await waitFor(
    async () => {
      const rows = await executions();
      return rows.every((e) => e.status === 'succeeded') ? rows : undefined;
    },
    { timeoutMs: 20_000, what: 'the handed-back work to run again' },
  );
  expect(done.every((e) => e.attempts === 1)).toBe(true);
  expect(target.received).toHaveLength(2 * IN_FLIGHT);
  console.log(`grace period of 1 s: exited 0 after ${stopMs} ms with ${IN_FLIGHT} requests handed back`);
  process.kill(-again.app.child.pid!, 'SIGINT');
  expect(await again.app.exited).toBe(0);
});

it('ALL_IN_ONE: Ctrl-C finishes the work in flight too and exits 0', async () => {
  const { app, base } = await start({ ALL_IN_ONE: '1' });
  await requestsInFlight(base, IN_FLIGHT);
  process.kill(-app.child.pid!, 'SIGINT');
  expect(await app.exited).toBe(0);
  await groupGone(app);
  expect(urls(target.received)).toEqual(expected(IN_FLIGHT));
  const done = await executions();
  expect(done.every((e) => e.status === 'succeeded' && e.attempts === 1)).toBe(true);
  expect(app.output()).toMatch(/stopping, \d+ requests? in flight/);
});
