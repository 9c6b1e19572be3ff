import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SqlPool } from '../db/client.js';
import { GroupCommit } from '../db/group-commit.js';
import { perPool } from '../db/per-pool.js';
import { hashToken } from '../ids/ids.js';
import { currentRequestId } from '../logging/log-context.js';
import type { Actor, Scope } from './actor.js';

// The one repository of credentials (docs/adr/025-actor-permissions-and-audit-log.md): API
// tokens and the console sessions opened with them. The admin token is configuration, compared
// by the API; its actor is `adminActor`.

interface TokenRow {
  id: string;
  token_hash: string;
  workspace_id: string;
  scope: Scope;
  name: string | null;
  last_used_at: Date | null;
}

// An expired token is no token: it is refused from the moment it expires, in every process.
const TOKENS_SQL = `
  SELECT id, token_hash, workspace_id, scope, name, last_used_at FROM api_tokens
   WHERE token_hash = ANY($1::text[]) AND (expires_at IS NULL OR expires_at > now())`;

// Every API request looks its token up in Postgres, so a deleted or expired token stops working at
// once in every process (docs/API.md, "Authentication"); the lookups of requests arriving together
// share one SELECT.
const lookups = perPool(
  (pool) =>
    new GroupCommit<string, TokenRow | null>(
      async (hashes) => {
        const { rows } = await pool.query<TokenRow>({ name: 'api-token-actors', text: TOKENS_SQL, values: [hashes] });
        const byHash = new Map(rows.map((r) => [r.token_hash, r]));
        return hashes.map((h) => byHash.get(h) ?? null);
      },
      { maxBatch: 500, maxInFlight: 2 },
    ),
);

const MINUTE_MS = 60_000;
const TOUCH_SQL = `UPDATE api_tokens SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= now() - interval '1 minute')`;
// The tokens this process refreshed in the last minute: a busy token costs one write a minute.
const touched = new Map<string, number>();

/**
 * Refreshes a token's `last_used_at` when it is a minute old or unset, in the background: the
 * request does not wait for it, and a failed refresh is tried again a minute later.
 */
function touch(pool: SqlPool, row: TokenRow): void {
  const now = Date.now();
  if (row.last_used_at && now - row.last_used_at.getTime() < MINUTE_MS) return;
  const last = touched.get(row.id);
  if (last !== undefined && now - last < MINUTE_MS) return;
  if (touched.size > 10_000) touched.clear();
  touched.set(row.id, now);
  pool.query({ name: 'api-token-touch', text: TOUCH_SQL, values: [row.id] }).catch(() => undefined);
}

/** The actor of an API token, or null when it is unknown, deleted or expired. The stored hash is compared in constant time. */
export async function tokenActor(pool: SqlPool, token: string): Promise<Actor | null> {
  const tokenHash = hashToken(token);
  const row = await lookups(pool).add(tokenHash);
  if (!row || !timingSafeEqual(Buffer.from(row.token_hash, 'hex'), Buffer.from(tokenHash, 'hex'))) return null;
  touch(pool, row);
  return { workspaceId: row.workspace_id, kind: 'token', tokenId: row.id, scope: row.scope, name: row.name, requestId: currentRequestId() ?? null };
}

/** How long a console session lasts after sign-in (docs/CONSOLE.md); it is not extended by use. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

export interface ConsoleSession {
  workspaceId: string;
  workspaceName: string;
  expiresAt: Date;
  /** The hash of the API token the session was opened with: its requests count against that token's rate limit. */
  tokenHash: string;
  tokenId: string;
  tokenName: string | null;
  scope: Scope;
}

const idHash = (sessionId: string) => createHash('sha256').update(sessionId).digest('hex');

// Expired sessions of every workspace go at each sign-in, so the table holds about the live ones.
// A session never outlives its token: it ends when the token expires, and goes with it when deleted.
const OPEN_SQL = `
  WITH expired AS (DELETE FROM console_sessions WHERE expires_at <= now())
  INSERT INTO console_sessions (id_hash, workspace_id, token_id, expires_at)
  SELECT $1, workspace_id, id, LEAST(now() + $3 * interval '1 millisecond', COALESCE(expires_at, 'infinity'))
    FROM api_tokens WHERE token_hash = $2 AND (expires_at IS NULL OR expires_at > now())
  RETURNING workspace_id`;

const FIND_SQL = `
  SELECT s.workspace_id, w.name, s.expires_at, t.token_hash, t.id AS token_id, t.name AS token_name, t.scope
    FROM console_sessions s JOIN workspaces w ON w.id = s.workspace_id JOIN api_tokens t ON t.id = s.token_id
   WHERE s.id_hash = $1 AND s.expires_at > now() AND (t.expires_at IS NULL OR t.expires_at > now())`;

/**
 * Opens a session for the workspace of an API token and returns its id (the cookie's value), or
 * null when the token is not one. Only the session id's hash is stored, never the token.
 */
export async function openConsoleSession(pool: SqlPool, apiToken: string): Promise<string | null> {
  const sessionId = randomBytes(32).toString('base64url');
  const { rowCount } = await pool.query(OPEN_SQL, [idHash(sessionId), hashToken(apiToken), SESSION_LIFETIME_MS]);
  return rowCount === 1 ? sessionId : null;
}

interface SessionRow {
  workspace_id: string;
  name: string;
  expires_at: Date;
  token_hash: string;
  token_id: string;
  token_name: string | null;
  scope: Scope;
}

/** The live session with this id; null when unknown, ended, expired or its token gone (on the database's clock). */
export async function findConsoleSession(pool: SqlPool, sessionId: string): Promise<ConsoleSession | null> {
  const { rows } = await pool.query<SessionRow>(FIND_SQL, [idHash(sessionId)]);
  const row = rows[0];
  if (!row) return null;
  return {
    workspaceId: row.workspace_id, workspaceName: row.name, expiresAt: row.expires_at, tokenHash: row.token_hash, tokenId: row.token_id, tokenName: row.token_name, scope: row.scope,
  };
}

export async function endConsoleSession(pool: SqlPool, sessionId: string): Promise<void> {
  await pool.query('DELETE FROM console_sessions WHERE id_hash = $1', [idHash(sessionId)]);
}

/** The actor of a console session. */
export function consoleActor(session: ConsoleSession): Actor {
  return { workspaceId: session.workspaceId, kind: 'console', tokenId: session.tokenId, scope: session.scope, name: session.tokenName, requestId: currentRequestId() ?? null };
}
