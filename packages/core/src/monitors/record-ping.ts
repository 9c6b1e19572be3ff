import type { SqlPool } from '../db/client.js';
import { hashLookup } from '../db/keyed-lookup.js';
import { hashToken } from '../ids/ids.js';
import { monitorPayloadSql } from './monitor-payload.js';

/**
 * One statement per ping: records it, moves the deadline (unless paused), and when the monitor
 * was down, writes its monitor.recovered event in the same statement. The row lock makes pings
 * and the down sweep take turns on one monitor, so each outage recovers once.
 */
const PING_SQL = `
  WITH m AS (SELECT id, state FROM monitors WHERE ping_token_hash = $1 FOR UPDATE),
  pinged AS (
    UPDATE monitors AS t SET
      last_ping_at = $2::timestamptz,
      state = CASE WHEN m.state = 'paused' THEN 'paused' ELSE 'up' END,
      next_due_at = CASE WHEN m.state = 'paused' THEN NULL ELSE $2::timestamptz + make_interval(secs => t.expected_interval_sec + t.grace_sec) END,
      updated_at = $2::timestamptz
      FROM m WHERE t.id = m.id
    RETURNING t.id, t.workspace_id, t.name, t.expected_interval_sec, t.last_ping_at, m.state AS was
  ), recovered AS (
    INSERT INTO events (workspace_id, type, monitor_id, payload, created_at)
    SELECT p.workspace_id, 'monitor.recovered', p.id, ${monitorPayloadSql('p', 'monitor.recovered', '$2::timestamptz')}, $2::timestamptz
      FROM pinged AS p WHERE p.was = 'down'
  )
  SELECT id FROM pinged`;

// Tokens are 43 base64url characters; anything else cannot match and needs no query.
const TOKEN = /^[A-Za-z0-9_-]{16,128}$/;

/** Records a ping; false when no monitor has this token. Touches Postgres only, never Redis. */
export async function recordPing(deps: { pool: SqlPool }, token: string, at: Date): Promise<boolean> {
  if (!TOKEN.test(token)) return false;
  const { rows } = await deps.pool.query({ name: 'record-ping', text: PING_SQL, values: [hashToken(token), at.toISOString()] });
  return rows.length > 0;
}

const knownPing = hashLookup('known-ping-tokens', 'SELECT ping_token_hash AS hash FROM monitors WHERE ping_token_hash = ANY($1::text[])');

/** Whether a monitor has this ping token, without taking its row lock (PUBLIC_RATE_LIMIT_PER_MINUTE counts first). */
export async function pingTokenKnown(deps: { pool: SqlPool }, token: string): Promise<boolean> {
  return TOKEN.test(token) && knownPing(deps.pool, hashToken(token));
}
