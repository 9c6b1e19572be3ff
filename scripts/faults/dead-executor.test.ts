import { randomBytes } from 'node:crypto';
import {
  createTestDatabase, deleteRedisKeys, productionEnv, queueEnv, startCompiledService, startTargetServer, uniqueName, waitFor, type CompiledService, type TargetServer,
  type TestDatabase
} from '@cronsvc/core/testing';
import { createBurst, until, type Burst } from './burst.js';
import { callsOf, executionIdsByJob, firstCallLag, judgeCalls, untilEveryCall } from './calls.js';
import { keepCreating, type Answer } from './clients.js';
import { faultScale, FULL_SCALE } from './scale.js';

// A worker SIGKILLed in the middle of a burst (docs/RELIABILITY.md, "A dead or stalled
// executor"). An executor killed 150 ms after thousands of fires came due: the other executor sees
// its heartbeat stop and takes its work over (docs/adr/018-liveness-based-reclaim.md), so every
// fire is sent within seconds of its due time instead of after the 30 s lease; a fire is sent
// twice only if the dead executor may have sent it, with the same execution id. A scheduler killed
// while firing, or an API killed while clients create jobs through it, loses nothing and doubles
// nothing (a notifier: dead-notifier.test.ts). Leases and the reconciler keep their production
// lengths, so the heartbeat is what recovers. On both queue backends (queueEnv).

const TOKEN = `csk_${randomBytes(16).toString('hex')}`;
const FIRES = faultScale(300, 2_000);
const SMALL = faultScale(100, 400);
// The scheduler fires SCHEDULER_LOOKAHEAD_MS (5 s) before the due time; a burst must be created before that.
const LEAD_MS = faultScale(12_000, 16_000);
// The target is 5 s; a reduced run shares two cores with the rest of `npm test`, so it holds a looser bound.
const MAX_P99_LAG_MS = FULL_SCALE ? 5_000 : 8_000;
// Far below the lease (30 s), which is what the dead executor's requests in flight waited for before.
const LAST_CALL_BEFORE_MS = 12_000;
// A resend cannot leave before the dead executor's heartbeat has been silent for
// EXECUTOR_DEAD_AFTER_MS (3 s); a call that first arrived later than this after the kill was
// made by a live executor, and must not have been made twice.
const DEAD_SENDS_UNTIL_MS = 1_000;
// Each call is answered after this long, and a reduced run's executors have fewer slots, so that at
// the kill the dead executor still holds fires it has not sent: those only the takeover can send.
const ANSWER_AFTER_MS = 100;
const EXECUTOR_CONCURRENCY = faultScale('20', '200');

let database: TestDatabase;
let prefix: string;
let target: TargetServer;
let service: CompiledService;

beforeAll(async () => {
  [database, target] = await Promise.all([createTestDatabase(), startTargetServer()]);
  prefix = uniqueName('test');
  service = await startCompiledService(
    productionEnv({ DATABASE_URL: database.url, ...queueEnv(prefix), EXECUTOR_CONCURRENCY }),
    { api: 2, scheduler: 2, executor: 2 },
    (name): Record<string, string> => (name === 'api' ? { BOOTSTRAP_API_TOKEN: TOKEN } : {}),
  );
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await target?.close();
  await database?.drop();
  if (prefix) await deleteRedisKeys(prefix);
});

const processesOf = (name: 'api' | 'scheduler' | 'executor') => service.processes.filter((p) => p.name === name && p.app.child.exitCode === null && p.app.child.signalCode === null);
const jobOf = (path: string) => path.slice(1);

it(`sends every fire of an executor SIGKILLed 150 ms after ${FIRES} came due, within 5 s, none under two ids`, async () => {
  target.handle((_req, res) => void setTimeout(() => res.end('ok'), ANSWER_AFTER_MS));
  const dueAt = Date.now() + LEAD_MS;
  const burst = await createBurst(service.apis[0], TOKEN, target, 'exe', FIRES, dueAt);
  if (Date.now() > dueAt - 5_000) throw new Error(`creating ${FIRES} jobs took too long for the burst to be fired ahead of time; raise LEAD_MS`);
  await until(dueAt + 150);
  const killedAt = Date.now();
  await processesOf('executor')[0].app.kill('SIGKILL');
  const sentBeforeKill = target.received.length;
  await untilEveryCall(target, burst, database.url, service.output);

  const calls = callsOf(target, burst);
  const faults = judgeCalls(calls, await executionIdsByJob(database.url), jobOf, killedAt + DEAD_SENDS_UNTIL_MS);
  const takenOver = [...calls.values()].filter((c) => c[0].at > killedAt + DEAD_SENDS_UNTIL_MS).length;
  const lag = firstCallLag(target, burst);
  // Resends included: what the dead executor was sending is sent again after the takeover, not after its lease.
  const lastCall = Math.max(...[...calls.values()].flat().map((r) => r.at)) - dueAt;
  process.stdout.write(
    `dead executor: ${FIRES} fires, ${sentBeforeKill} sent before the kill, ${takenOver} first sent by the takeover, ${faults.resent} sent again with the same id; ` +
      `first-call lag p50 ${lag.p50} ms, p99 ${lag.p99} ms, max ${lag.max} ms; last call ${lastCall} ms after the due time\n`,
  );
  expect(faults).toMatchObject({ lost: [], underTwoIds: [], resentByTheLiving: [] });
  // The dead executor had fires left that only the takeover sent, or the test proved nothing.
  expect(takenOver).toBeGreaterThan(0);
  expect(service.output()).toMatch(/took over the work of executors whose heartbeat stopped/);
  expect(lag.p99).toBeLessThan(MAX_P99_LAG_MS);
  expect(lastCall).toBeLessThan(LAST_CALL_BEFORE_MS);
}, 180_000);

it(`loses and doubles nothing when a scheduler is SIGKILLed while firing ${SMALL} jobs`, async () => {
  target.handle((_req, res) => void res.end('ok'));
  const dueAt = Date.now() + LEAD_MS;
  const burst = await createBurst(service.apis[0], TOKEN, target, 'sch', SMALL, dueAt);
  // Killed as soon as the first of the burst's executions is in the record: in the middle of firing.
  await waitFor(async () => ((await executionIdsByJob(database.url)).has(`sch-0`) ? true : undefined), { timeoutMs: LEAD_MS, intervalMs: 10, what: 'the burst to be fired' });
  await processesOf('scheduler')[0].app.kill('SIGKILL');
  await untilEveryCall(target, burst, database.url, service.output);
  const faults = judgeCalls(callsOf(target, burst), await executionIdsByJob(database.url), jobOf, 0);
  const lag = firstCallLag(target, burst);
  process.stdout.write(`dead scheduler: ${SMALL} fires; lag p50 ${lag.p50} ms, p99 ${lag.p99} ms, max ${lag.max} ms\n`);
  expect(faults).toEqual({ lost: [], underTwoIds: [], resentByTheLiving: [], resent: 0 });
}, 180_000);

it('loses and doubles nothing when an API is SIGKILLed while clients create jobs through it', async () => {
  target.handle((_req, res) => void res.end('ok'));
  const victim = processesOf('api')[1];
  const onVictim = keepCreating(service.apis[1], TOKEN, target, 'api-killed');
  const onSurvivor = keepCreating(service.apis[0], TOKEN, target, 'api-alive');
  await waitFor(() => onVictim.answers.filter((a) => a.status === 201).length >= 10, { what: 'jobs created through the API to be killed' });
  const killedAt = Date.now();
  await victim.app.kill('SIGKILL');
  await waitFor(() => onSurvivor.answers.filter((a) => a.at > killedAt + 1_000 && a.status === 201).length >= 10, { what: 'jobs created through the other API after the kill' });
  await Promise.all([onVictim.stop(), onSurvivor.stop()]);
  // The other API kept answering; the killed one answered until it died, then nothing. Neither
  // answered anything but 201 or, when Postgres could not serve in time (a busy machine), 503.
  const answered = (a: Answer) => a.status === 201 || (a.status === 503 && a.code === 'service_unavailable');
  expect(onSurvivor.answers.filter((a) => !answered(a))).toEqual([]);
  expect(onVictim.answers.filter((a) => !answered(a) && a.status !== 0)).toEqual([]);
  // Every job accepted exists; a request left without an answer created its job or did not.
  const answers = [...onVictim.answers, ...onSurvivor.answers];
  const executions = await executionIdsByJob(database.url);
  expect(answers.filter((a) => a.status === 201 && !executions.has(jobOf(a.path))).map((a) => a.path)).toEqual([]);
  const created: Burst = { paths: answers.map((a) => a.path).filter((path) => executions.has(jobOf(path))), dueAt: killedAt };
  await untilEveryCall(target, created, database.url, service.output);
  const faults = judgeCalls(callsOf(target, created), await executionIdsByJob(database.url), jobOf, 0);
  process.stdout.write(`dead API: ${created.paths.length} jobs created, ${answers.filter((a) => a.status === 0).length} requests left without an answer by the kill\n`);
  expect(faults).toEqual({ lost: [], underTwoIds: [], resentByTheLiving: [], resent: 0 });
  // Nothing that was not created was called.
  const paths = new Set(created.paths);
  expect(target.received.filter((r) => r.url.includes('-live-') && !paths.has(r.url)).map((r) => r.url)).toEqual([]);
}, 120_000);
