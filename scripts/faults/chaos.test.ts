import { randomBytes } from 'node:crypto';
import pg from 'pg';
import {
  createTestDatabase, productionEnv, startCompiledService, startTargetServer, throwawayRedis, uniqueName, waitFor, type CompiledService, type ReceivedRequest, type TargetServer,
  type TestDatabase, type ThrowawayRedis
} from '@cronsvc/core/testing';
import { callsOf, executionIdsByJob, judgeCalls } from './calls.js';
import { apiClient, createSchedules, type ApiClient, FAILING, oneTimeBursts, resumeWaits, wasAccepted, type Creation, type Schedule } from './chaos-load.js';
import { runChaos, running, stallsTakenOver, superviseRestarts, survivors, type ChaosPlan, type Fault, type Supervisor } from './chaos.js';
import { chaosScale, FULL_CHAOS } from './scale.js';

// The chaos soak (docs/RELIABILITY.md, "The chaos soak"): the split topology (2 APIs, 2
// schedulers, 3 executors, 2 notifiers, each `node apps/<x>/dist/main.js`, started again by a
// process manager whenever it exits) runs one-minute schedules, bursts of one_time jobs, workflows
// with waits and failing jobs with notification rules, while a random process is SIGKILLed every
// few seconds, the test's own Redis restarts twice without its data and every connection to the
// test's own database is terminated twice. Afterwards: every accepted job called, no call under
// two ids, every slot of the schedules in the fire ledger `fired`, `late` or `caught_up` (the
// service was never wholly down, so none `missed`), every delivery sent once, no process left.
// Reduced in `npm test`; ten minutes with `npm run test:chaos`.

const TOKEN = `csk_${randomBytes(16).toString('hex')}`;
const PLAN: ChaosPlan = {
  durationMs: chaosScale(90_000, 600_000),
  killEveryMs: chaosScale([10_000, 20_000], [15_000, 30_000]),
  redisRestartsAt: [0.2, 0.6],
  terminationsAt: [0.4, 0.8],
  redisDownMs: 2_000,
};
const COUNTS = chaosScale({ schedules: 30, failing: 4, workflows: 6 }, { schedules: 200, failing: 10, workflows: 20 });
const BURSTS = chaosScale({ everyMs: 15_000, size: 40 }, { everyMs: 20_000, size: 150 });
// How long the process manager waits before it starts an exited process again.
const RESTART_DELAY_MS = 500;
// The one documented exception to "once" (docs/RELIABILITY.md): a call made again with the same
// id when a fault may have kept the first from being recorded. Only a call that first went out
// this close to a kill of its sender, or to connections terminated, may have been.
const UNRECORDED_BEFORE_MS = 5_000;
const UNRECORDED_AFTER_MS = 2_000;
// Once the faults stop, everything they held up is done within this.
const DRAIN_MS = 120_000;
// EXECUTOR_DEAD_AFTER_MS and NOTIFIER_DEAD_AFTER_MS, left at their defaults.
const DEAD_AFTER_MS = 3_000;
const ALLOWED_OUTCOMES = ['fired', 'late', 'caught_up'];

let database: TestDatabase;
let redis: ThrowawayRedis;
let target: TargetServer;
let receiver: TargetServer;
let service: CompiledService;
let supervisor: Supervisor | undefined;

beforeAll(async () => {
  [database, redis, target, receiver] = await Promise.all([createTestDatabase(), throwawayRedis(), startTargetServer(), startTargetServer()]);
  target.handle((req, res) => {
    res.statusCode = req.url.startsWith(FAILING) ? 500 : 200;
    res.end('ok');
  });
  service = await startCompiledService(
    productionEnv({ DATABASE_URL: database.url, REDIS_URL: redis.url, QUEUE_BACKEND: 'redis', REDIS_PREFIX: uniqueName('test') }),
    { api: 2, scheduler: 2, executor: 3, notifier: 2 },
    // Every API gets the token: an API started without it revokes the one an earlier setting made.
    (name): Record<string, string> => (name === 'api' ? { BOOTSTRAP_API_TOKEN: TOKEN } : {}),
  );
}, 180_000);

// Stopped even when the test fails: every process group, the restarts first.
afterAll(async () => {
  supervisor?.stop();
  await service?.stop();
  await Promise.all([target?.close(), receiver?.close()]);
  await redis?.stop();
  await database?.drop();
});

async function rows<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** Whether a call that first went out at a time may have gone unrecorded by a fault: a kill or a stall of `sender`, or connections terminated. */
function mayBeUnrecorded(faults: Fault[], sender: 'executor' | 'notifier'): (at: number) => boolean {
  const windows = faults.filter((f) => f.kind === 'connections terminated' || ((f.kind === 'kill' || f.kind === 'stall taken over') && f.app === sender));
  return (at) => windows.some((f) => at >= f.at - UNRECORDED_BEFORE_MS && at <= f.endedAt + UNRECORDED_AFTER_MS);
}

interface Fire {
  job_id: string;
  scheduled_for: string;
  outcome: string;
  lag_ms: number | null;
}

/** The workspace's fire ledger between two times (GET /v1/fires), every page. */
async function ledger(client: ApiClient, from: number, to: number): Promise<Fire[]> {
  const fires: Fire[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await client.expect(200, 'GET', `/v1/fires?from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}&limit=100&offset=${offset}`);
    fires.push(...(page.data as Fire[]));
    if (offset + 100 >= page.total) return fires;
  }
}

/** Each schedule's slots from its first to `end`: the fires the ledger must hold. */
function expectedSlots(schedules: Schedule[], end: number): Map<string, string[]> {
  const slots = new Map<string, string[]>();
  for (const s of schedules) {
    const own: string[] = [];
    for (let t = s.firstSlot; t <= end; t += 60_000) own.push(new Date(t).toISOString());
    slots.set(s.id, own);
  }
  return slots;
}

/** The ledger's faults: expected slots absent, listed twice or with an outcome other than fired, late or caught_up, and fires of none of the slots. */
function judgeLedger(fires: Fire[], expected: Map<string, string[]>): string[] {
  const wrong: string[] = [];
  const seen = new Map<string, Fire[]>();
  for (const f of fires) seen.set(`${f.job_id} ${f.scheduled_for}`, [...(seen.get(`${f.job_id} ${f.scheduled_for}`) ?? []), f]);
  const wanted = new Set<string>();
  for (const [job, slots] of expected) {
    for (const slot of slots) {
      const key = `${job} ${slot}`;
      wanted.add(key);
      const found = seen.get(key) ?? [];
      if (found.length !== 1 || !ALLOWED_OUTCOMES.includes(found[0].outcome)) wrong.push(`${key}: ${found.map((f) => f.outcome).join(', ') || 'absent'}`);
    }
  }
  for (const [key, found] of seen) if (expected.has(key.split(' ')[0]) && !wanted.has(key)) wrong.push(`${key}: ${found.map((f) => f.outcome).join(', ')} (not a slot of the run)`);
  return wrong;
}

const percentiles = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? NaN };
};

/** The fires more than a second late, by slot, with the faults that began from 10 s before the slot to its last fire: what the lag's tail is made of. */
function slowSlots(fires: Fire[], faults: Fault[], startedAt: number): string[] {
  const slow = new Map<string, number[]>();
  for (const f of fires) if (f.lag_ms !== null && f.lag_ms > 1_000 && f.outcome !== 'caught_up') slow.set(f.scheduled_for, [...(slow.get(f.scheduled_for) ?? []), f.lag_ms]);
  return [...slow].map(([slot, lags]) => {
    const due = Date.parse(slot);
    const near = faults.filter((f) => f.at >= due - 10_000 && f.at <= due + Math.max(...lags));
    const what = near.map((f) => `${f.kind}${f.app ? ` ${f.app}` : ''} at ${((f.at - due) / 1000).toFixed(1)} s`).join(', ');
    return `slot ${slot} (+${Math.round((due - startedAt) / 1000)} s): ${lags.length} fires ${Math.min(...lags)}-${Math.max(...lags)} ms late; faults: ${what || 'none'}`;
  });
}

const countBy = <T>(items: T[], key: (item: T) => string) => items.reduce<Record<string, number>>((acc, item) => ({ ...acc, [key(item)]: (acc[key(item)] ?? 0) + 1 }), {});

/** The job a target path names: its name, less a workflow step's `-a` or `-b`. */
const jobOf = (path: string) => (path.startsWith('/wf-') ? path.slice(1).replace(/-[ab]$/, '') : path.slice(1));

/** Calls at the target under an execution id that is not one of the path's job, and calls made again under the same id by live processes. */
function judgeEveryCall(received: ReceivedRequest[], jobByExecution: Map<string, string>, mayBeResent: (at: number) => boolean) {
  const strays: string[] = [];
  const byExecution = new Map<string, ReceivedRequest[]>();
  for (const r of received) {
    const id = String(r.headers['x-cron-service-execution-id']);
    if (jobByExecution.get(id) !== jobOf(r.url)) strays.push(`${r.url} under ${id}`);
    byExecution.set(`${id} ${r.url}`, [...(byExecution.get(`${id} ${r.url}`) ?? []), r]);
  }
  const again = [...byExecution].filter(([, calls]) => calls.length > 1);
  return { strays, resent: again.length, resentByTheLiving: again.filter(([, calls]) => !mayBeResent(calls[0].at)).map(([key]) => key) };
}

it(`keeps every promise through ${PLAN.durationMs / 1000} s of chaos: random SIGKILLs, Redis restarts, connections terminated`, async () => {
  const client = apiClient(service.apis, TOKEN);
  const schedules = await createSchedules(client, target, receiver, COUNTS);
  const manager = superviseRestarts(service, RESTART_DELAY_MS);
  supervisor = manager;
  const startedAt = Date.now();
  const endsAt = startedAt + PLAN.durationMs;
  const [faults, creations, resumed] = await Promise.all([
    runChaos(service, redis, database, PLAN),
    oneTimeBursts(client, target, receiver, { ...BURSTS, endsAt }),
    resumeWaits(client, database.url, endsAt),
  ]);
  const end = Date.now();
  const outputTail = () => service.output().slice(-8_000);

  // Drained: what the faults held up is done, and each process runs again.
  const accepted: Creation[] = creations.filter(wasAccepted);
  const acceptedPaths = { paths: accepted.map((c) => c.path), dueAt: startedAt };
  const notCalled = () => [...callsOf(target, acceptedPaths).values()].filter((calls) => calls.length === 0).length;
  await waitFor(() => notCalled() === 0, { timeoutMs: DRAIN_MS, what: () => `every accepted job to be called (${notCalled()} of ${accepted.length} not):\n${outputTail()}` });
  const firstSlot = Math.min(...schedules.map((s) => s.firstSlot));
  const expected = expectedSlots(schedules, end);
  const fires = await waitFor(
    async () => {
      const all = await ledger(client, firstSlot, end);
      return all.some((f) => f.outcome === 'pending') ? undefined : all;
    },
    { timeoutMs: DRAIN_MS, intervalMs: 2_000, what: () => `every slot of the run to leave pending:\n${outputTail()}` },
  );
  await waitFor(async () => (await rows<{ n: number }>('SELECT count(*)::int AS n FROM executions WHERE finished_at IS NULL AND created_at <= $1', [new Date(end)]))[0].n === 0, {
    timeoutMs: DRAIN_MS,
    what: () => `every execution of the run to end:\n${outputTail()}`,
  });
  // Each failure's callback, and the rule's message for the failing schedules, each sent.
  const deliveryGaps = () =>
    rows<{ id: string; job_name: string; callbacks: number; messages: number; unsent: number }>(
      `SELECT e.id, e.job_name, count(d.id) FILTER (WHERE d.kind = 'callback')::int AS callbacks, count(d.id) FILTER (WHERE d.kind = 'channel')::int AS messages,
              count(d.id) FILTER (WHERE d.status <> 'sent')::int AS unsent
         FROM executions e LEFT JOIN deliveries d ON d.execution_id = e.id
        WHERE e.status = 'failed' AND e.created_at <= $1 GROUP BY e.id, e.job_name`,
      [new Date(end)],
    ).then((failed) => failed.filter((f) => f.callbacks !== 1 || f.messages !== (f.job_name.startsWith('fail-cron-') ? 1 : 0) || f.unsent > 0));
  // On a timeout, the expectation below names what is missing.
  await waitFor(async () => (await deliveryGaps()).length === 0, { timeoutMs: DRAIN_MS }).catch(() => undefined);
  expect(await deliveryGaps()).toEqual([]);
  await waitFor(() => service.processes.every(running), { timeoutMs: 60_000, what: () => `every process to run again:\n${outputTail()}` });

  // Judged, then printed, then the verdicts: a failed run shows its figures too.
  const kills = faults.filter((f) => f.kind === 'kill');
  const stalls = await stallsTakenOver(service.output(), database.url, new Set(kills.map((k) => k.pid!)), DEAD_AFTER_MS);
  faults.push(...stalls);
  const oneTime = judgeCalls(callsOf(target, acceptedPaths), await executionIdsByJob(database.url), jobOf, mayBeUnrecorded(faults, 'executor'));
  const executions = await rows<{ id: string; job_name: string; status: string; error_class: string | null }>(
    'SELECT id, job_name, status, error_class FROM executions WHERE created_at <= $1',
    [new Date(end)],
  );
  const jobByExecution = new Map((await rows<{ id: string; job_name: string }>('SELECT id, job_name FROM executions')).map((e) => [e.id, e.job_name]));
  const calls = judgeEveryCall(target.received, jobByExecution, mayBeUnrecorded(faults, 'executor'));
  const wrongEnds = executions.filter((e) => (`/${e.job_name}`.startsWith(FAILING) ? e.status !== 'failed' || e.error_class !== 'HTTP_5XX' : e.status !== 'succeeded'));
  const deliveries = await rows<{ id: string; kind: string }>('SELECT d.id, d.kind FROM deliveries d JOIN executions e ON e.id = d.execution_id WHERE e.created_at <= $1', [new Date(end)]);
  const allDeliveries = new Set((await rows<{ id: string }>('SELECT id FROM deliveries')).map((d) => d.id));
  const byKey = new Map<string, ReceivedRequest[]>();
  for (const r of receiver.received) byKey.set(String(r.headers['idempotency-key']), [...(byKey.get(String(r.headers['idempotency-key'])) ?? []), r]);
  const notifierFault = mayBeUnrecorded(faults, 'notifier');
  const deliveryFaults = {
    lost: deliveries.filter((d) => !byKey.has(d.id)).map((d) => d.id),
    unknown: [...byKey.keys()].filter((key) => !allDeliveries.has(key)),
    resentByTheLiving: [...byKey].filter(([, received]) => received.length > 1 && !notifierFault(received[0].at)).map(([key]) => key),
  };

  const restartTimes = manager.restarts.filter((r) => r.startedAt).map((r) => r.startedAt! - r.exitedAt);
  // A catch-up's lag is its window's; the slots' own fires are what the lag is of.
  const ownFires = fires.filter((f) => f.outcome === 'fired' || f.outcome === 'late');
  const slotLag = percentiles(ownFires.map((f) => f.lag_ms!));
  const firstCalls = new Map<string, number>();
  for (const r of target.received) if (!firstCalls.has(r.url)) firstCalls.set(r.url, r.at);
  const oneTimeLag = percentiles(accepted.map((c) => firstCalls.get(c.path)! - c.at));
  const resentDeliveries = [...byKey.values()].filter((received) => received.length > 1).length;
  process.stdout.write(
    [
      `chaos soak (${FULL_CHAOS ? 'full' : 'reduced'}): ${PLAN.durationMs / 1000} s, 2 APIs, 2 schedulers, 3 executors, 2 notifiers`,
      `  faults: ${kills.length} SIGKILLs (${Object.entries(countBy(kills, (k) => k.app!)).map(([app, n]) => `${n} ${app}`).join(', ')}), ` +
        `${faults.filter((f) => f.kind === 'redis restart').length} Redis restarts, ${faults.filter((f) => f.kind === 'connections terminated').length} rounds of connections terminated; ` +
        `${stalls.length} live processes taken over as dead (${Object.entries(countBy(stalls, (k) => k.app!)).map(([app, n]) => `${n} ${app}`).join(', ') || 'none'}); ` +
        `${manager.restarts.length} restarts, started again within p50 ${percentiles(restartTimes).p50} ms, max ${percentiles(restartTimes).max} ms of the exit`,
      `  one_time: ${creations.length} created through the APIs, ${accepted.length} accepted (${creations.filter((c) => c.tries > 1).length} after a retry; ` +
        `not accepted, by last status: ${JSON.stringify(countBy(creations.filter((c) => !wasAccepted(c)), (c) => String(c.status)))}), ` +
        `all called, ${oneTime.resent} called again with the same id; first call after acceptance p50 ${oneTimeLag.p50} ms, p99 ${oneTimeLag.p99} ms, max ${oneTimeLag.max} ms`,
      `  schedules: ${schedules.length} (${COUNTS.failing} failing, ${COUNTS.workflows} workflows, ${resumed} waits resumed by webhook); ${fires.length} fires: ` +
        `${JSON.stringify(countBy(fires, (f) => f.outcome))}; slot lag p50 ${slotLag.p50} ms, p99 ${slotLag.p99} ms, max ${slotLag.max} ms`,
      ...slowSlots(fires, faults, startedAt).map((line) => `    ${line}`),
      `  calls: ${target.received.length} at the target, ${calls.resent} made again with the same id; deliveries: ${deliveries.length} ` +
        `(${JSON.stringify(countBy(deliveries, (d) => d.kind))}), each sent, ${resentDeliveries} sent again with the same id`,
      '',
    ].join('\n'),
  );

  // The API answered every create 201 (or 200 to a try after a lost answer), or 503 `service_unavailable` while Postgres was away, or not at all (killed).
  expect(creations.filter((c) => ![201, 200, 503, 0].includes(c.status) || (c.status === 503 && c.code !== 'service_unavailable'))).toEqual([]);
  // Every accepted one_time job called, under its one execution id.
  expect({ lost: oneTime.lost, underTwoIds: oneTime.underTwoIds, resentByTheLiving: oneTime.resentByTheLiving }).toEqual({ lost: [], underTwoIds: [], resentByTheLiving: [] });
  // Every call of the run (schedules, workflow steps, one_time jobs) under an execution of its own job, and made again only with that id and where a fault allows it.
  expect({ strays: calls.strays, resentByTheLiving: calls.resentByTheLiving }).toEqual({ strays: [], resentByTheLiving: [] });
  // Every slot of every schedule once in the ledger, fired, late or caught up.
  expect(judgeLedger(fires, expected)).toEqual([]);
  // Each execution ended as its target answered: failing jobs failed with HTTP_5XX, the others (workflows through their waits) succeeded.
  expect(wrongEnds.map((e) => `${e.job_name} ${e.id} ${e.status} ${e.error_class}`)).toEqual([]);
  // Every delivery of the run received under its id (Idempotency-Key), and again only where a fault allows it.
  expect(deliveryFaults).toEqual({ lost: [], unknown: [], resentByTheLiving: [] });

  // No process left: every pid the service had, restarts included.
  manager.stop();
  await service.stop();
  expect(survivors(manager.pids)).toEqual([]);
}, PLAN.durationMs + 480_000);
