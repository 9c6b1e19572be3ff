import { hostname } from 'node:os';
import pg from 'pg';
import type { SqlPool } from '../db/client.js';
import { outlivingDroppedConnections } from '../db/dropped-connections.js';
import { newId } from '../ids/ids.js';
import type { Logger } from '../logging/logger.js';

export const WORKER_KINDS = ['scheduler', 'executor', 'notifier'] as const;
export type WorkerKind = (typeof WORKER_KINDS)[number];

/**
 * How often a worker writes its heartbeat: often enough that an executor silent for
 * EXECUTOR_DEAD_AFTER_MS (a few beats) can be taken for dead and its work taken over
 * (docs/adr/018-liveness-based-reclaim.md).
 */
export const HEARTBEAT_INTERVAL_MS = 1_000;
/** A heartbeat older than this means the worker is stuck or gone, for readiness. */
export const HEARTBEAT_STALE_SECONDS = 15;
// Rows of processes that died without anyone removing them are dropped after this long.
const FORGET_AFTER = '1 hour';
// Every this many beats (about a minute), a worker drops rows that FORGET_AFTER has passed.
const SWEEP_EVERY_BEATS = 60;

export interface Heartbeat {
  /**
   * This worker's id, stable for the life of the process: work it claims can carry it, so that
   * another process seeing the heartbeat stop knows whose work to take over.
   */
  readonly workerId: string;
  /** Stops beating and removes the row (a clean stop: the worker is gone, not late). */
  stop(): Promise<void>;
}

const BEAT_SQL = `
  INSERT INTO workers (id, kind, hostname, pid, supervisor, started_at, heartbeat_at)
  VALUES ($1, $2, $3, $4, $5, now(), now())
  ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()`;

/**
 * Writes this worker's heartbeat into `workers` on the database's clock (so the readers need no
 * agreement between machines' clocks), now and every HEARTBEAT_INTERVAL_MS. A beat that fails
 * (the database is down) is logged and the next one tries again: the row going stale is how
 * readiness sees the worker cut off.
 */
export async function startHeartbeat(
  deps: { pool: SqlPool; logger: Logger },
  kind: WorkerKind,
  supervisor: string | undefined,
  workerId: string = newId('wrk'),
): Promise<Heartbeat> {
  const values = [workerId, kind, hostname(), process.pid, supervisor ?? null];
  let beats = 0;
  let failing = false;
  const beat = async () => {
    try {
      await deps.pool.query({ name: 'worker-heartbeat', text: BEAT_SQL, values });
      beats += 1;
      if (beats % SWEEP_EVERY_BEATS === 0) await deps.pool.query(`DELETE FROM workers WHERE heartbeat_at < now() - interval '${FORGET_AFTER}'`);
      if (failing) deps.logger.info('heartbeat written again', { kind, workerId });
      failing = false;
    } catch (error) {
      if (!failing) deps.logger.warn('heartbeat not written; readiness will report this worker', { kind, workerId, error: (error as Error).message });
      failing = true;
    }
  };
  await beat();
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = beat();
  }, HEARTBEAT_INTERVAL_MS);
  timer.unref();
  return {
    workerId,
    async stop() {
      clearInterval(timer);
      await running;
      await deps.pool.query('DELETE FROM workers WHERE id = $1', [workerId]).catch(() => undefined);
    },
  };
}

/**
 * For a supervisor: marks the rows of a child it saw exit as infinitely old, so readiness reports
 * the worker at once instead of after the stale time, and executors take over its work at once
 * (reclaimExecutions); FORGET_AFTER removes the row later. One connection at most, opened when needed.
 */
export function supervisedWorkers(databaseUrl: string, supervisor: string): { forget(pid: number): Promise<void>; close(): Promise<void> } {
  const pool = outlivingDroppedConnections(new pg.Pool({ connectionString: databaseUrl, max: 1 }));
  return {
    async forget(pid) {
      await pool.query(`UPDATE workers SET heartbeat_at = '-infinity' WHERE supervisor = $1 AND pid = $2`, [supervisor, pid]);
    },
    close: () => pool.end(),
  };
}

export interface WorkerStatus {
  kind: WorkerKind;
  /** Seconds since the freshest heartbeat of that kind in the group; null when none is running. */
  heartbeatAgeSeconds: number | null;
}

/** The freshest heartbeat of each kind among the workers of one supervisor (or one worker by id). */
export async function workerStatuses(pool: SqlPool, scope: { supervisor: string } | { workerId: string }): Promise<WorkerStatus[]> {
  const { rows } = await pool.query<{ kind: WorkerKind; age: number }>(
    `SELECT kind, extract(epoch FROM now() - max(heartbeat_at))::float8 AS age FROM workers
      WHERE ${'supervisor' in scope ? 'supervisor' : 'id'} = $1 AND heartbeat_at > '-infinity' GROUP BY kind`,
    ['supervisor' in scope ? scope.supervisor : scope.workerId],
  );
  const byKind = new Map(rows.map((r) => [r.kind, r.age]));
  return WORKER_KINDS.map((kind) => ({ kind, heartbeatAgeSeconds: byKind.get(kind) ?? null }));
}
