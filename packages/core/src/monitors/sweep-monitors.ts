import type { SqlPool } from '../db/client.js';
import { monitorPayloadSql } from './monitor-payload.js';

/**
 * Takes the monitors whose deadline has passed (an index range scan over next_due_at, which is
 * set only while a monitor is up: its next expected ping plus grace, or the end of a started run's
 * max_duration_sec), marks them down with no deadline, so each outage is reported
 * once, and writes their monitor.down events, all in one statement. Rows a ping holds are skipped
 * until the next sweep.
 */
export const SWEEP_SQL = `
  WITH due AS (
    SELECT id, state FROM monitors WHERE next_due_at < $1::timestamptz ORDER BY next_due_at LIMIT $2 FOR UPDATE SKIP LOCKED
  ), went_down AS (
    UPDATE monitors AS m SET state = CASE WHEN due.state = 'up' THEN 'down' ELSE m.state END, next_due_at = NULL, next_expected_at = NULL, updated_at = $1::timestamptz
      FROM due WHERE m.id = due.id
    RETURNING m.id, m.workspace_id, m.name, m.expected_interval_sec, m.last_ping_at, due.state AS was
  )
  INSERT INTO events (workspace_id, type, monitor_id, payload, created_at)
  SELECT d.workspace_id, 'monitor.down', d.id, ${monitorPayloadSql('d', 'monitor.down', '$1::timestamptz')}, $1::timestamptz
    FROM went_down AS d WHERE d.was = 'up'
  RETURNING monitor_id`;

export const SWEEP_BATCH = 1_000;

/** Marks every overdue monitor down (in batches); returns how many went down. */
export async function sweepMonitors(deps: { pool: SqlPool; clock: { now(): Date } }, options: { batchSize?: number } = {}): Promise<number> {
  const limit = options.batchSize ?? SWEEP_BATCH;
  let total = 0;
  for (;;) {
    const { rowCount } = await deps.pool.query({ name: 'sweep-monitors', text: SWEEP_SQL, values: [deps.clock.now().toISOString(), limit] });
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < limit) return total;
  }
}
