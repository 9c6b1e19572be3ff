import { randomBytes } from 'node:crypto';
import pg from 'pg';
import {
  aOneTimeJob, createTestDatabase, deleteRedisKeys, productionEnv, queueEnv, startCompiledService, startTargetServer, uniqueName, waitFor, type CompiledService, type TargetServer,
  type TestDatabase
} from '@cronsvc/core/testing';

// An executor whose event loop stops (SIGSTOP) while its request waits for the target's answer
// (docs/RELIABILITY.md, "A dead or stalled executor"). Its heartbeat stops with it, so the other
// executor takes the execution over (docs/adr/018-liveness-based-reclaim.md) and sends it again,
// with the same execution id (the documented at-least-once case), and records it. When the first
// executor runs again and gets its answer, the claim token it holds is no longer the execution's:
// it records nothing and sends nothing again. The lease keeps its production length (30 s), so the
// takeover is the heartbeat's doing.

const TOKEN = `csk_${randomBytes(16).toString('hex')}`;

let database: TestDatabase;
let prefix: string;
let target: TargetServer;
let service: CompiledService;
let db: pg.Client;

beforeAll(async () => {
  [database, target] = await Promise.all([createTestDatabase(), startTargetServer()]);
  prefix = uniqueName('test');
  service = await startCompiledService(
    productionEnv({ DATABASE_URL: database.url, ...queueEnv(prefix) }),
    { api: 1, scheduler: 1, executor: 2 },
    (name): Record<string, string> => (name === 'api' ? { BOOTSTRAP_API_TOKEN: TOKEN } : {}),
  );
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
}, 120_000);

afterAll(async () => {
  for (const p of service?.processes ?? []) if (p.app.child.pid && p.app.child.exitCode === null) process.kill(-p.app.child.pid, 'SIGCONT');
  await service?.stop();
  await db?.end();
  await target?.close();
  await database?.drop();
  if (prefix) await deleteRedisKeys(prefix);
});

interface ExecutionRow {
  id: string;
  status: string;
  claimed_by: string | null;
  claim_token: number;
  pid: number | null;
}

async function execution(): Promise<ExecutionRow | undefined> {
  const { rows } = await db.query<ExecutionRow>(
    `SELECT e.id, e.status, e.claimed_by, e.claim_token, w.pid FROM executions e LEFT JOIN workers w ON w.id = e.claimed_by WHERE e.job_name = 'stalled'`,
  );
  return rows[0];
}

it('an executor stopped mid-request, taken over and resumed, records nothing and sends nothing again', async () => {
  let releaseFirst: () => void = () => undefined;
  const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
  target.handle(async (_req, res) => {
    if (target.received.filter((r) => r.url === '/stalled').length === 1) await firstHeld;
    res.end('ok');
  });
  const calls = () => target.received.filter((r) => r.url === '/stalled');
  const res = await fetch(`${service.apis[0]}/v1/jobs`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(aOneTimeJob({ name: 'stalled', request: { url: `${target.url}/stalled` } })),
  });
  expect(res.status).toBe(201);
  await waitFor(() => calls().length === 1, { timeoutMs: 30_000, what: 'the first request' });

  const first = (await execution())!;
  expect(first).toMatchObject({ status: 'running', claim_token: 1 });
  const stalled = service.processes.find((p) => p.name === 'executor' && p.app.child.pid === first.pid);
  expect(stalled).toBeDefined();
  process.kill(-stalled!.app.child.pid!, 'SIGSTOP');
  const stoppedAt = Date.now();

  // The other executor takes it over once the heartbeat has been silent for EXECUTOR_DEAD_AFTER_MS.
  const done = await waitFor(async () => {
    const row = await execution();
    return row?.status === 'succeeded' ? row : undefined;
  }, { timeoutMs: 25_000, what: () => `the other executor to take the execution over and finish it:\n${service.output().slice(-3_000)}` });
  const takenOverAfter = Date.now() - stoppedAt;
  expect(done.claimed_by).not.toBe(first.claimed_by);
  expect(done.claim_token).toBe(2);
  expect(calls()).toHaveLength(2);

  // Back to life, with the target's answer to its stale request waiting for it.
  releaseFirst();
  process.kill(-stalled!.app.child.pid!, 'SIGCONT');
  await waitFor(() => /attempt not recorded: the execution was taken over/.test(stalled!.app.output()), {
    timeoutMs: 15_000,
    what: () => `the stalled executor to find its claim taken over:\n${stalled!.app.output().slice(-3_000)}`,
  });
  // It beats again: its timers (lease renewal, held attempts) have all had their turn.
  await waitFor(async () => (await db.query(`SELECT 1 FROM workers WHERE id = $1 AND heartbeat_at > now() - interval '1 second'`, [first.claimed_by])).rowCount === 1, {
    timeoutMs: 10_000,
    what: 'the stalled executor to beat again',
  });
  process.stdout.write(`stalled executor: taken over ${takenOverAfter} ms after SIGSTOP\n`);

  expect(calls().map((r) => r.headers['webhook-id'])).toEqual([first.id, first.id]);
  const { rows: attempts } = await db.query<{ number: number; status_code: number }>('SELECT number, status_code FROM attempts WHERE execution_id = $1', [first.id]);
  expect(attempts).toEqual([{ number: 1, status_code: 200 }]);
  expect(await execution()).toMatchObject({ status: 'succeeded', claim_token: 2, claimed_by: done.claimed_by });
  expect(stalled!.app.child.exitCode).toBeNull();
}, 120_000);
