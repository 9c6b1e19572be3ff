import { randomBytes } from 'node:crypto';
import {
  aOneTimeJob, aScheduledJob, createTestDatabase, deleteRedisKeys, productionEnv, redisUrl, startCompiledService, startTargetServer, uniqueName, waitFor, type CompiledService, type TargetServer, type TestDatabase
} from '@cronsvc/core/testing';

// Scaling out is running more processes of an app against the same Postgres and Redis
// (docs/OPERATIONS.md, "Scaling"): here two APIs, two schedulers, three executors and two
// notifiers, each its own compiled process. Jobs created through both APIs, half due at once and
// half when the schedulers fire them, are each called once, and each success callback (a delivery,
// sent by a notifier) arrives once.

const TOKEN = `csk_${randomBytes(16).toString('hex')}`;
const JOBS = 60;
let database: TestDatabase;
let prefix: string;
let target: TargetServer;
let receiver: TargetServer;
let service: CompiledService;

beforeAll(async () => {
  database = await createTestDatabase();
  prefix = uniqueName('test');
  target = await startTargetServer();
  receiver = await startTargetServer();
  service = await startCompiledService(
    productionEnv({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix }),
    { api: 2, scheduler: 2, executor: 3, notifier: 2 },
    // Every API gets the token: an API started without it revokes the one an earlier setting made.
    (name): Record<string, string> => (name === 'api' ? { BOOTSTRAP_API_TOKEN: TOKEN } : {}),
  );
});

afterAll(async () => {
  await service?.stop();
  await target.close();
  await receiver.close();
  await database.drop();
  await deleteRedisKeys(prefix);
});

it('calls each job once and sends each callback once with every kind of process running more than once', async () => {
  // Far enough ahead that the last create, on a busy machine, still names a future time.
  const runAt = new Date(Date.now() + 15_000).toISOString();
  const names = Array.from({ length: JOBS }, (_, i) => `job-${i}`);
  await Promise.all(
    names.map(async (name, i) => {
      const fields = { name, request: { url: `${target.url}/${name}` }, on_success_url: `${receiver.url}/${name}` };
      const res = await fetch(`${service.apis[i % service.apis.length]}/v1/jobs`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(i % 2 === 0 ? aOneTimeJob(fields) : aScheduledJob({ ...fields, schedule: { run_at: runAt } })),
      });
      expect(res.status).toBe(201);
    }),
  );
  await waitFor(() => new Set(receiver.received.map((r) => r.url)).size === JOBS, {
    timeoutMs: 60_000,
    what: () => `every callback (${receiver.received.length} so far):\n${service.output()}`,
  });
  // A callback is sent once its execution has ended and been recorded: by then a second executor
  // that had taken the same execution would have called its target too.
  for (const name of names) {
    expect(target.received.filter((r) => r.url === `/${name}`)).toHaveLength(1);
    expect(receiver.received.filter((r) => r.url === `/${name}`)).toHaveLength(1);
  }
  expect(target.received).toHaveLength(JOBS);
  expect(receiver.received).toHaveLength(JOBS);
  // And both schedulers, all three executors and both notifiers are still running.
  expect(service.processes.filter((p) => p.app.child.exitCode !== null).map((p) => p.name)).toEqual([]);
}, 120_000);
