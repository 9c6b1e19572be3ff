import { randomBytes } from 'node:crypto';
import pg from 'pg';
import {
  aCronJob, createTestDatabase, deleteRedisKeys, productionEnv, queueEnv, startCompiledService, startTargetServer, uniqueName, waitFor, type CompiledService,
  type TargetServer, type TestDatabase,
} from '@cronsvc/core/testing';
import { faultScale } from './scale.js';

// The fire ledger across a real outage (docs/JOBS.md, "The fire ledger"): the service is stopped
// while slots of a one-minute job pass, then started again, and the ledger accounts for every
// slot once: the window's catch-up and the others missed, linked to it. Slots are real minutes,
// so the reduced size spans two slots (about two minutes of wall time), the full size four.

const SLOTS_DOWN = faultScale(2, 4);
// The scheduler plans a fire SCHEDULER_LOOKAHEAD_MS (5 s) ahead; a slot closer than this when the
// service stops may already have its execution, and the outage starts at the slot after it.
const MARGIN_MS = 8_000;
const TOKEN = `csk_${randomBytes(16).toString('hex')}`;

let database: TestDatabase;
let prefix: string;
let target: TargetServer;
let service: CompiledService | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  [database, target] = await Promise.all([createTestDatabase(), startTargetServer()]);
  prefix = uniqueName('test');
  env = productionEnv({ DATABASE_URL: database.url, ...queueEnv(prefix) });
}, 60_000);

afterAll(async () => {
  await service?.stop();
  await target?.close();
  await database?.drop();
  if (prefix) await deleteRedisKeys(prefix);
});

const start = () => startCompiledService(env, { api: 1, scheduler: 1, executor: 1 }, (name): Record<string, string> => (name === 'api' ? { BOOTSTRAP_API_TOKEN: TOKEN } : {}));

async function api(path: string, init: RequestInit = {}) {
  const res = await fetch(`${service!.apis[0]}${path}`, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' } });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function nextRunAt(jobId: string): Promise<Date> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ next_run_at: Date }>('SELECT next_run_at FROM jobs WHERE id = $1', [jobId]);
    return rows[0].next_run_at;
  } finally {
    await client.end();
  }
}

it(`accounts for ${SLOTS_DOWN} slots of a one-minute job passed while the service was stopped: one caught_up, the others missed, no slot twice`, async () => {
  service = await start();
  const created = await api('/v1/jobs', { method: 'POST', body: JSON.stringify(aCronJob({ name: 'every minute', schedule: { cron: '* * * * *' }, request: { url: `${target.url}/tick` } })) });
  expect(created.status).toBe(201);
  const jobId = created.body.id as string;
  // Stopped well before a slot, so that slot has not been planned yet.
  const firstSlot = new Date(created.body.next_run_at);
  if (firstSlot.getTime() - Date.now() < MARGIN_MS) {
    await waitFor(async () => (await nextRunAt(jobId)).getTime() > firstSlot.getTime(), { what: 'the scheduler to plan the near slot', timeoutMs: 30_000 });
  }
  await service.stop();
  service = undefined;
  const down = await nextRunAt(jobId);
  const slots = Array.from({ length: SLOTS_DOWN }, (_, i) => new Date(down.getTime() + i * 60_000).toISOString());
  const lastDown = Date.parse(slots[SLOTS_DOWN - 1]);
  await waitFor(() => Date.now() > lastDown + 2_000, { what: 'the outage to span its slots', timeoutMs: lastDown - Date.now() + 60_000, intervalMs: 500 });

  service = await start();
  const ledger = await waitFor(
    async () => {
      const { body } = await api(`/v1/jobs/${jobId}/fires?limit=100`);
      return (body.data as Record<string, any>[]).some((f) => f.outcome === 'caught_up') ? (body.data as Record<string, any>[]) : undefined;
    },
    { what: () => `the catch-up to go out:\n${service?.output()}`, timeoutMs: 60_000 },
  );
  const bySlot = new Map(ledger.map((f) => [f.scheduled_for, f]));
  expect(bySlot.size).toBe(ledger.length);
  const [first, ...rest] = slots.map((s) => bySlot.get(s));
  expect(first).toMatchObject({ scheduled_for: slots[0], outcome: 'caught_up', reason: null });
  expect(first!.execution_id).toMatch(/^exe_/);
  expect(rest.map((f) => [f?.outcome, f?.execution_id, f?.fired_at])).toEqual(rest.map(() => ['missed', first!.execution_id, null]));
  // Nothing else of the outage: the slots before it fired as their own, and the window ran once.
  const others = ledger.filter((f) => !slots.includes(f.scheduled_for));
  expect(others.every((f) => Date.parse(f.scheduled_for) < Date.parse(slots[0]) || Date.parse(f.scheduled_for) > lastDown)).toBe(true);
  expect(others.every((f) => ['pending', 'fired', 'late'].includes(f.outcome))).toBe(true);
  const calls = target.received.filter((r) => r.url === '/tick');
  const executions = (await api(`/v1/jobs/${jobId}/executions?limit=100`)).body.data as { id: string }[];
  expect(new Set(executions.map((e) => e.id))).toEqual(new Set(ledger.filter((f) => f.outcome !== 'missed').map((f) => f.execution_id)));
  expect(calls.length).toBeLessThanOrEqual(executions.length);
}, 360_000);
