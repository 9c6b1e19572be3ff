import { randomBytes } from 'node:crypto';
import {
  aScheduledJob, connectedTo, createTestDatabase, deleteRedisKeys, holdAnswers, productionEnv, queueEnv, startCompiledService, startTargetServer, uniqueName, waitFor, type CompiledService,
  type TargetServer, type TestDatabase
} from '@cronsvc/core/testing';
import { inParallel, type Burst } from './burst.js';
import { callsOf, executionIdsByJob, judgeCalls, pendingDeliveries, untilEveryCall } from './calls.js';
import { faultScale } from './scale.js';

// A notifier SIGKILLed while it sends callbacks (docs/RELIABILITY.md, "A dead notifier"): every
// callback is sent, each under its execution's id (webhook-id), and one is sent twice only if the
// dead notifier may have sent it. The other notifier takes the dead one's deliveries over once its
// heartbeat has been silent for NOTIFIER_DEAD_AFTER_MS (3 s): what it was sending and what it had
// relayed go out within seconds, not after the delivery lease (30 s) or the reconciler.

const TOKEN = `csk_${randomBytes(16).toString('hex')}`;
const CALLBACKS = faultScale(100, 400);
// The scheduler fires SCHEDULER_LOOKAHEAD_MS (5 s) before the due time; the jobs must be created before that.
const LEAD_MS = faultScale(9_000, 12_000);
// A callback first received later than this after the kill was sent by the live notifier, and must not have been sent twice.
const DEAD_SENDS_UNTIL_MS = 1_000;
// Every delivery is sent by then after the kill: the takeover after 3 s of silence, and the sends
// (the reduced run shares its cores with the rest of the test run). The lease alone took 33 s.
const ALL_SENT_WITHIN_MS = 15_000;

let database: TestDatabase;
let prefix: string;
let target: TargetServer;
let receiver: TargetServer;
let service: CompiledService;

beforeAll(async () => {
  [database, target, receiver] = await Promise.all([createTestDatabase(), startTargetServer(), startTargetServer()]);
  prefix = uniqueName('test');
  service = await startCompiledService(
    productionEnv({ DATABASE_URL: database.url, ...queueEnv(prefix) }),
    { api: 1, scheduler: 1, executor: 1, notifier: 2 },
    (name): Record<string, string> => (name === 'api' ? { BOOTSTRAP_API_TOKEN: TOKEN } : {}),
  );
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await Promise.all([target?.close(), receiver?.close()]);
  await database?.drop();
  if (prefix) await deleteRedisKeys(prefix);
});

it(`loses and doubles nothing when a notifier is SIGKILLed while sending ${CALLBACKS} callbacks`, async () => {
  const runAt = new Date(Date.now() + LEAD_MS).toISOString();
  const paths = Array.from({ length: CALLBACKS }, (_, i) => `/ntf-${i}`);
  const burst: Burst = { paths, dueAt: Date.parse(runAt) };
  await inParallel(CALLBACKS, 32, async (i) => {
    const res = await fetch(`${service.apis[0]}/v1/jobs`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(aScheduledJob({ name: `ntf-${i}`, request: { url: `${target.url}/ntf-${i}` }, on_success_url: `${receiver.url}${paths[i]}`, schedule: { run_at: runAt } })),
    });
    expect(res.status).toBe(201);
  });
  // Killed while it sends: the receiver holds its answers until a notifier is seen with requests
  // to it in flight, and that one is killed. What it was sending waits for its delivery lease.
  const release = holdAnswers(receiver);
  const notifiers = service.processes.filter((p) => p.name === 'notifier');
  const sending = await waitFor(
    async () => {
      const pids = await connectedTo(notifiers.map((p) => p.app.child.pid!), receiver.port);
      return notifiers.find((p) => pids.includes(p.app.child.pid!));
    },
    { timeoutMs: LEAD_MS + 30_000, intervalMs: 20, what: 'a notifier sending callbacks' },
  );
  const killedAt = Date.now();
  await sending.app.kill('SIGKILL');
  release();
  await untilEveryCall(receiver, burst, database.url, service.output);
  // What the dead notifier was sending is sent again by the other once it is found dead: with the same id.
  await waitFor(async () => (await pendingDeliveries(database.url)) === 0, { timeoutMs: 60_000, what: 'every delivery to be sent' });
  const allSentMs = Date.now() - killedAt;
  const faults = judgeCalls(callsOf(receiver, burst), await executionIdsByJob(database.url), (path) => path.slice(1), killedAt + DEAD_SENDS_UNTIL_MS);
  const last = Math.max(...receiver.received.map((r) => r.at));
  process.stdout.write(`dead notifier: ${CALLBACKS} callbacks, ${faults.resent} sent again with the same id; the last arrived ${last - killedAt} ms after the kill, all recorded ${allSentMs} ms after it\n`);
  expect(faults).toMatchObject({ lost: [], underTwoIds: [], resentByTheLiving: [] });
  expect(allSentMs).toBeLessThan(ALL_SENT_WITHIN_MS);
  expect(service.output()).toMatch(/took over the deliveries of notifiers whose heartbeat stopped/);
}, 180_000);
