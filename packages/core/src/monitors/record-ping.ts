import type { MonitorPingKind } from '@cronsvc/contracts';
import type { SqlPool } from '../db/client.js';
import { hashLookup } from '../db/keyed-lookup.js';
import { hashToken } from '../ids/ids.js';
import { monitorPayloadSql } from './monitor-payload.js';
import { nextExpectedAfter, type MonitorSchedule } from './monitor-schedule.js';

/** Pings kept per monitor; the history is pruned every PRUNE_EVERY pings, so it holds at most KEPT + PRUNE_EVERY - 1 rows. */
export const PINGS_KEPT = 1_000;
export const PRUNE_EVERY = 100;
/** Bytes of a POST body kept with its ping. */
export const BODY_PREVIEW_BYTES = 10 * 1024;
const USER_AGENT_MAX = 512;

/**
 * One statement per ping (after reading the monitor's schedule, which the statement checks is
 * still the same): records the ping in the history (pruning its oldest in a batch every
 * PRUNE_EVERY pings, an index range of the primary key), moves the state and the deadline, and
 * writes the monitor.down (a fail) or monitor.recovered (a success after down) event. The row
 * lock makes pings and the down sweep take turns on one monitor, so each outage is reported once
 * and recovers once.
 *
 * $1 token hash, $2 received at, $3 kind, $4 exit status, $5 the next expected ping if this ping
 * opens a window, $6/$7 the schedule read, $8 body preview, $9 source IP, $10 user agent.
 */
const PING_SQL = `
  WITH m AS (
    SELECT id, state, run_started_at FROM monitors
     WHERE ping_token_hash = $1 AND schedule_cron IS NOT DISTINCT FROM $6::text AND expected_interval_sec IS NOT DISTINCT FROM $7::int
     FOR UPDATE
  ), c AS (
    SELECT m.id, m.state AS was,
      CASE WHEN $3 <> 'start' AND m.run_started_at IS NOT NULL
        THEN LEAST(GREATEST(0, extract(epoch FROM $2::timestamptz - m.run_started_at) * 1000), 2147483647)::int END AS duration_ms,
      CASE WHEN m.state = 'paused' THEN 'paused' WHEN $3 = 'fail' THEN 'down' WHEN $3 = 'success' OR m.state = 'new' THEN 'up' ELSE m.state END AS state,
      ($3 = 'success' OR ($3 = 'start' AND m.state = 'new')) AS opens
    FROM m
  ), pinged AS (
    UPDATE monitors AS t SET
      last_ping_at = $2::timestamptz,
      state = c.state,
      window_start_at = CASE WHEN c.opens THEN $2::timestamptz ELSE t.window_start_at END,
      next_expected_at = CASE WHEN c.state <> 'up' THEN NULL WHEN c.opens THEN $5::timestamptz ELSE t.next_expected_at END,
      next_due_at = CASE WHEN c.state <> 'up' THEN NULL ELSE LEAST(
        (CASE WHEN c.opens THEN $5::timestamptz ELSE t.next_expected_at END) + make_interval(secs => t.grace_sec),
        CASE WHEN $3 = 'start' THEN $2::timestamptz + make_interval(secs => t.max_duration_sec) END) END,
      run_started_at = CASE WHEN $3 = 'start' THEN $2::timestamptz END,
      last_duration_ms = COALESCE(c.duration_ms, t.last_duration_ms),
      ping_count = t.ping_count + 1,
      updated_at = $2::timestamptz
      FROM c WHERE t.id = c.id
    RETURNING t.id, t.workspace_id, t.name, t.expected_interval_sec, t.last_ping_at, t.ping_count, c.was, c.state, c.duration_ms
  ), logged AS (
    INSERT INTO monitor_pings (monitor_id, seq, kind, exit_status, received_at, duration_ms, body_preview, source_ip, user_agent)
    SELECT p.id, p.ping_count, $3, $4::int, $2::timestamptz, p.duration_ms, $8::text, $9::text, $10::text FROM pinged AS p
  ), pruned AS (
    DELETE FROM monitor_pings AS old USING pinged AS p
     WHERE p.ping_count % ${PRUNE_EVERY} = 0 AND old.monitor_id = p.id AND old.seq <= p.ping_count - ${PINGS_KEPT}
  ), went_down AS (
    INSERT INTO events (workspace_id, type, monitor_id, payload, created_at)
    SELECT p.workspace_id, 'monitor.down', p.id, ${monitorPayloadSql('p', 'monitor.down', '$2::timestamptz')}, $2::timestamptz
      FROM pinged AS p WHERE p.state = 'down' AND p.was IN ('new', 'up')
  ), recovered AS (
    INSERT INTO events (workspace_id, type, monitor_id, payload, created_at)
    SELECT p.workspace_id, 'monitor.recovered', p.id, ${monitorPayloadSql('p', 'monitor.recovered', '$2::timestamptz')}, $2::timestamptz
      FROM pinged AS p WHERE p.state = 'up' AND p.was = 'down'
  )
  SELECT id FROM pinged`;

const SCHEDULE_SQL = 'SELECT expected_interval_sec, schedule_cron FROM monitors WHERE ping_token_hash = $1';

// Tokens are 43 base64url characters; anything else cannot match and needs no query.
const TOKEN = /^[A-Za-z0-9_-]{16,128}$/;

/** What a ping says besides its token; a plain ping is a success. */
export interface PingDetails {
  kind: MonitorPingKind;
  exitStatus: number | null;
  /** A POST body; its first BODY_PREVIEW_BYTES are kept. */
  body: Buffer | null;
  sourceIp: string | null;
  userAgent: string | null;
}

/** The first BODY_PREVIEW_BYTES of a body as text (a character cut in two, or NUL, becomes U+FFFD). */
export function bodyPreview(body: Buffer | null): string | null {
  if (!body || body.length === 0) return null;
  return body.subarray(0, BODY_PREVIEW_BYTES).toString('utf8').replace(/\0/g, '\uFFFD');
}

/**
 * Records a ping; false when no monitor has this token. Touches Postgres only, never Redis. A
 * schedule changed between the read and the statement is read again.
 */
export async function recordPing(deps: { pool: SqlPool }, token: string, at: Date, details: Partial<PingDetails> = {}): Promise<boolean> {
  if (!TOKEN.test(token)) return false;
  const hash = hashToken(token);
  const kind = details.kind ?? 'success';
  const text = (value: string | null | undefined, max: number) => (value ? value.slice(0, max).replace(/\0/g, '\uFFFD') : null);
  for (let tries = 0; tries < 3; tries++) {
    const found = await deps.pool.query<{ expected_interval_sec: number | null; schedule_cron: string | null }>({ name: 'ping-schedule', text: SCHEDULE_SQL, values: [hash] });
    const row = found.rows[0];
    if (!row) return false;
    const schedule: MonitorSchedule = { expectedIntervalSec: row.expected_interval_sec, scheduleCron: row.schedule_cron };
    const { rows } = await deps.pool.query({
      name: 'record-ping',
      text: PING_SQL,
      values: [
        hash,
        at.toISOString(),
        kind,
        details.exitStatus ?? null,
        nextExpectedAfter(schedule, at).toISOString(),
        row.schedule_cron,
        row.expected_interval_sec,
        bodyPreview(details.body ?? null),
        text(details.sourceIp, 64),
        text(details.userAgent, USER_AGENT_MAX),
      ],
    });
    if (rows.length > 0) return true;
  }
  return false;
}

const knownPing = hashLookup('known-ping-tokens', 'SELECT ping_token_hash AS hash FROM monitors WHERE ping_token_hash = ANY($1::text[])');

/** Whether a monitor has this ping token, without taking its row lock (PUBLIC_RATE_LIMIT_PER_MINUTE counts first). */
export async function pingTokenKnown(deps: { pool: SqlPool }, token: string): Promise<boolean> {
  return TOKEN.test(token) && knownPing(deps.pool, hashToken(token));
}
