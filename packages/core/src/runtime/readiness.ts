import type { ReadinessCheck } from '@cronsvc/contracts';
import { readMigrations } from '../db/migrate.js';
import type { Deps } from '../deps/deps.js';
import { HEARTBEAT_STALE_SECONDS, WORKER_KINDS, workerStatuses, type WorkerKind } from './heartbeat.js';

/** `ok`, or `fail: <reason>`: nothing secret, the body is public. */
type CheckResult = ReadinessCheck;

export interface Readiness {
  ready: boolean;
  checks: Record<string, CheckResult>;
}

/**
 * Which workers a process vouches for beside the stores: under `npm start` (and ALL_IN_ONE) the
 * API reports every worker of its supervisor; a worker started alone reports itself.
 */
export type WorkerScope = { supervisor: string } | { workerId: string; kind: WorkerKind } | null;

// Each check answers within this, or fails saying it timed out: a probe must not hang on a dead store.
const CHECK_TIMEOUT_MS = 2_000;

class CheckFailed extends Error {}

export function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckFailed(`no answer within ${ms / 1000} s`)), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const fail = (reason: string): CheckResult => `fail: ${reason.replace(/\s+/g, ' ').slice(0, 200)}`;

async function run(check: () => Promise<CheckResult>): Promise<CheckResult> {
  try {
    return await within(check(), CHECK_TIMEOUT_MS);
  } catch (error) {
    return fail(error instanceof CheckFailed ? error.message : `${(error as Error).message || (error as Error).name}`);
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

async function workerChecks(deps: Pick<Deps, 'pool' | 'config'>, scope: NonNullable<WorkerScope>): Promise<Record<string, CheckResult>> {
  const kinds: readonly WorkerKind[] = 'supervisor' in scope ? WORKER_KINDS : [scope.kind];
  let statuses: Awaited<ReturnType<typeof workerStatuses>>;
  let lag: number;
  try {
    [statuses, lag] = await within(Promise.all([workerStatuses(deps.pool, scope), kinds.includes('scheduler') ? oldestDueFireAgeSeconds(deps) : 0]), CHECK_TIMEOUT_MS);
  } catch (error) {
    const reason = fail(`heartbeats unreadable (${(error as Error).message})`);
    return Object.fromEntries(kinds.map((k) => [k, reason]));
  }
  const limit = deps.config.readyMaxFireLagSeconds;
  return Object.fromEntries(
    kinds.map((kind) => {
      const alive = heartbeatCheck(statuses.find((s) => s.kind === kind)?.heartbeatAgeSeconds ?? null);
      if (alive !== 'ok' || kind !== 'scheduler' || lag <= limit) return [kind, alive];
      return [kind, fail(`a due fire is ${Math.round(lag)} s late (READY_MAX_FIRE_LAG_SECONDS=${limit})`)];
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
  const checks: Record<string, CheckResult> = { database, queues, migrations, ...workers };
  return { ready: Object.values(checks).every((c) => c === 'ok'), checks };
}
