import type { ReadinessCheck } from '@cronsvc/contracts';
import { readMigrations } from '../db/migrate.js';
import type { Deps } from '../deps/deps.js';
import { unavailableReason } from '../errors/unavailable.js';
import { HEARTBEAT_STALE_SECONDS, WORKER_KINDS, workerStatuses, type WorkerKind } from './heartbeat.js';

/** `ok`, or `fail: <reason>`: nothing secret, the body is public. */
type CheckResult = ReadinessCheck;

export interface Readiness {
  ready: boolean;
  checks: Record<string, CheckResult>;
  /** The errors behind failing checks, for the log only: their messages name hosts and addresses. */
  errors: Record<string, Error>;
}

/**
 * Which workers a process vouches for beside the stores: under `npm start` (and ALL_IN_ONE) the
 * API reports every worker of its supervisor; a worker started alone reports itself.
 */
export type WorkerScope = { supervisor: string } | { workerId: string; kind: WorkerKind } | null;

// Each check answers within this, or fails saying it timed out: a probe must not hang on a dead store.
const CHECK_TIMEOUT_MS = 2_000;

class CheckTimedOut extends Error {}

export function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckTimedOut(`no answer within ${ms / 1000} s`)), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const fail = (reason: string): CheckResult => `fail: ${reason}`;

/**
 * A failed check in a fixed phrase (docs/OPERATIONS.md, "Health and readiness"): `timeout`,
 * `unreachable`, `connection lost`, `overloaded`, `shutting down`, or `error` for anything else.
 * Never the error's message: /readyz is public, and a driver's message names hosts and addresses.
 */
function reasonOf(error: unknown): string {
  return error instanceof CheckTimedOut ? 'timeout' : (unavailableReason(error) ?? 'error');
}

interface Outcome {
  result: CheckResult;
  error?: Error;
}

async function run(check: () => Promise<CheckResult>): Promise<Outcome> {
  try {
    return { result: await within(check(), CHECK_TIMEOUT_MS) };
  } catch (error) {
    return { result: fail(reasonOf(error)), error: error as Error };
  }
}

// The migrations this code was built with, read once per process.
let known: Promise<string[]> | undefined;

async function migrationsCheck(deps: Pick<Deps, 'pool'>): Promise<CheckResult> {
  known ??= readMigrations().then((all) => all.map((m) => m.name));
  known.catch(() => (known = undefined));
  const { rows } = await deps.pool.query<{ migration_name: string }>(
    'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
  );
  const applied = new Set(rows.map((r) => r.migration_name));
  const codeKnows = new Set(await known);
  const pending = [...codeKnows].filter((name) => !applied.has(name));
  const unknown = [...applied].filter((name) => !codeKnows.has(name));
  if (pending.length > 0) return fail(`${pending.length} not applied (${pending.join(', ')})`);
  if (unknown.length > 0) return fail(`the database has migrations this version does not know (${unknown.join(', ')})`);
  return 'ok';
}

/** Seconds the oldest due fire is late (0 when none is), on the database's clock. */
export async function oldestDueFireAgeSeconds(deps: Pick<Deps, 'pool'>): Promise<number> {
  // next_run_at is null whenever nothing is scheduled, so its index gives the minimum at once.
  const { rows } = await deps.pool.query<{ age: number | null }>({
    name: 'oldest-due-fire',
    text: 'SELECT extract(epoch FROM now() - min(next_run_at))::float8 AS age FROM jobs WHERE next_run_at < now()',
  });
  return Math.max(0, rows[0]?.age ?? 0);
}

function heartbeatCheck(age: number | null): CheckResult {
  if (age === null) return fail('not running');
  if (age > HEARTBEAT_STALE_SECONDS) return fail(`no heartbeat for ${Math.round(age)} s`);
  return 'ok';
}

async function workerChecks(deps: Pick<Deps, 'pool' | 'config'>, scope: NonNullable<WorkerScope>): Promise<Record<string, Outcome>> {
  const kinds: readonly WorkerKind[] = 'supervisor' in scope ? WORKER_KINDS : [scope.kind];
  let statuses: Awaited<ReturnType<typeof workerStatuses>>;
  let lag: number;
  try {
    [statuses, lag] = await within(Promise.all([workerStatuses(deps.pool, scope), kinds.includes('scheduler') ? oldestDueFireAgeSeconds(deps) : 0]), CHECK_TIMEOUT_MS);
  } catch (error) {
    const unreadable: Outcome = { result: fail(`heartbeats unreadable: ${reasonOf(error)}`), error: error as Error };
    return Object.fromEntries(kinds.map((k) => [k, unreadable]));
  }
  const limit = deps.config.readyMaxFireLagSeconds;
  return Object.fromEntries(
    kinds.map((kind): [string, Outcome] => {
      const alive = heartbeatCheck(statuses.find((s) => s.kind === kind)?.heartbeatAgeSeconds ?? null);
      if (alive !== 'ok' || kind !== 'scheduler' || lag <= limit) return [kind, { result: alive }];
      return [kind, { result: fail(`a due fire is ${Math.round(lag)} s late (READY_MAX_FIRE_LAG_SECONDS=${limit})`) }];
    }),
  );
}

/**
 * What /readyz answers: the database, the queue store and the migrations, and the workers in
 * scope; ready when every check is ok. Checks run together, each bounded in time.
 */
export async function checkReadiness(deps: Pick<Deps, 'pool' | 'queues' | 'config'>, scope: WorkerScope): Promise<Readiness> {
  const [database, queues, migrations, workers] = await Promise.all([
    run(async () => (await deps.pool.query('SELECT 1'), 'ok')),
    run(async () => (await deps.queues.jobCounts(), 'ok')),
    run(() => migrationsCheck(deps)),
    scope ? workerChecks(deps, scope) : {},
  ]);
  const outcomes: Record<string, Outcome> = { database, queues, migrations, ...workers };
  const checks: Record<string, CheckResult> = {};
  const errors: Record<string, Error> = {};
  for (const [name, { result, error }] of Object.entries(outcomes)) {
    checks[name] = result;
    if (error) errors[name] = error;
  }
  return { ready: Object.values(checks).every((c) => c === 'ok'), checks, errors };
}
