import { inTransaction, type SqlPool } from '../db/client.js';

/** What a notifier takes over from notifiers found dead; empty when none was. */
export interface ReclaimedDeliveries {
  /** The dead notifiers (workers.id) this call took over. */
  workers: string[];
  /** Deliveries they were sending: their leases are ended, so they can be claimed now. */
  running: string[];
  /**
   * Deliveries due now and claimed by no one: a dead notifier may have relayed them and not
   * started them yet, so nothing else would send them before the reconciler.
   */
  due: string[];
}

// A notifier other than the caller ($2) silent for $1 ms that nobody has taken over since its
// last beat (as reclaimExecutions judges executors).
const DEAD = `kind = 'notifier' AND id <> $2 AND heartbeat_at < now() - $1 * interval '1 millisecond'
              AND (reclaimed_at IS NULL OR reclaimed_at < heartbeat_at)`;

const ANY_DEAD_SQL = `SELECT EXISTS (SELECT 1 FROM workers WHERE ${DEAD}) AS any`;

const DEAD_SQL = `
  UPDATE workers SET reclaimed_at = now()
   WHERE id IN (SELECT id FROM workers WHERE ${DEAD} FOR UPDATE SKIP LOCKED)
  RETURNING id`;

// A processing delivery's lease is its next_attempt_at. Ended a second in the past, so that a
// claim made on a clock slightly behind the database's still sees it over. The attempt count is
// untouched: the dead notifier, if it was only stalled, records nothing once another has claimed.
const END_LEASES_SQL = `
  UPDATE deliveries SET next_attempt_at = now() - interval '1 second'
   WHERE status = 'processing' AND claimed_by = ANY($1::text[])
  RETURNING id`;

// Through the index on (status, next_attempt_at), the relayed ones (no time) first.
const DUE_SQL = `
  SELECT id FROM deliveries
   WHERE status = 'pending' AND (next_attempt_at IS NULL OR next_attempt_at <= now())
   ORDER BY next_attempt_at NULLS FIRST, id
   LIMIT $1`;

/**
 * Takes over, for the notifier `workerId`, the work of other notifiers whose heartbeat has been
 * silent for `deadAfterMs` on the database's clock, as executors do for executors
 * (docs/adr/018-liveness-based-reclaim.md): ends the leases of the deliveries they were sending
 * and lists the pending deliveries due now (at most `dueLimit`), for the caller to send. Sending a
 * delivery twice at once is safe: the claim counts the attempt, and only the holder of the
 * attempt records it.
 */
export async function reclaimDeliveries(pool: SqlPool, options: { workerId: string; deadAfterMs: number; dueLimit: number }): Promise<ReclaimedDeliveries> {
  const { rows } = await pool.query<{ any: boolean }>({ name: 'dead-notifiers', text: ANY_DEAD_SQL, values: [options.deadAfterMs, options.workerId] });
  if (!rows[0].any) return { workers: [], running: [], due: [] };
  return inTransaction(pool, async (client) => {
    const dead = (await client.query<{ id: string }>(DEAD_SQL, [options.deadAfterMs, options.workerId])).rows.map((r) => r.id);
    if (dead.length === 0) return { workers: [], running: [], due: [] };
    const running = (await client.query<{ id: string }>(END_LEASES_SQL, [dead])).rows.map((r) => r.id);
    const due = (await client.query<{ id: string }>(DUE_SQL, [options.dueLimit])).rows.map((r) => r.id);
    await client.query(`DELETE FROM workers WHERE id = ANY($1::text[]) AND heartbeat_at = '-infinity'`, [dead]);
    return { workers: dead, running, due };
  });
}

/**
 * The notifier's hand-back at the end of its grace period: the leases of the deliveries it is
 * still sending end now, so another notifier (or its next start) claims them at once. Answers
 * them with their attempt count, to queue their next attempt.
 */
export async function releaseDeliveries(pool: SqlPool, workerId: string): Promise<{ id: string; attempts: number }[]> {
  const { rows } = await pool.query<{ id: string; attempts: number }>(
    `UPDATE deliveries SET next_attempt_at = now() - interval '1 second'
      WHERE status = 'processing' AND claimed_by = $1
     RETURNING id, attempts`,
    [workerId],
  );
  return rows;
}

/** Pending deliveries due now (at most `limit`), the relayed ones first: what a notifier sends when it starts. */
export async function dueDeliveries(pool: SqlPool, limit: number): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(DUE_SQL, [limit]);
  return rows.map((r) => r.id);
}
