import { createHash, randomBytes } from 'node:crypto';
import { hashToken, type SqlPool } from '@cronsvc/core';

/** How long a console session lasts after sign-in (docs/CONSOLE.md); it is not extended by use. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

export interface ConsoleSession {
  workspaceId: string;
  workspaceName: string;
  expiresAt: Date;
  /** The hash of the API token the session was opened with: its requests count against that token's rate limit. */
  tokenHash: string;
}

const idHash = (sessionId: string) => createHash('sha256').update(sessionId).digest('hex');

// Expired sessions of every workspace go at each sign-in, so the table holds about the live ones.
const OPEN_SQL = `
  WITH expired AS (DELETE FROM console_sessions WHERE expires_at <= now())
  INSERT INTO console_sessions (id_hash, workspace_id, token_id, expires_at)
  SELECT $1, workspace_id, id, now() + $3 * interval '1 millisecond' FROM api_tokens WHERE token_hash = $2
  RETURNING workspace_id`;

const FIND_SQL = `
  SELECT s.workspace_id, w.name, s.expires_at, t.token_hash
    FROM console_sessions s JOIN workspaces w ON w.id = s.workspace_id JOIN api_tokens t ON t.id = s.token_id
   WHERE s.id_hash = $1 AND s.expires_at > now()`;

/**
 * Opens a session for the workspace of an API token and returns its id (the cookie's value), or
 * null when the token is not one. Only the session id's hash is stored, never the token.
 */
export async function openSession(pool: SqlPool, apiToken: string): Promise<string | null> {
  const sessionId = randomBytes(32).toString('base64url');
  const { rowCount } = await pool.query(OPEN_SQL, [idHash(sessionId), hashToken(apiToken), SESSION_LIFETIME_MS]);
  return rowCount === 1 ? sessionId : null;
}

/** The live session with this id; null when unknown, ended or expired (on the database's clock). */
export async function findSession(pool: SqlPool, sessionId: string): Promise<ConsoleSession | null> {
  const { rows } = await pool.query<{ workspace_id: string; name: string; expires_at: Date; token_hash: string }>(FIND_SQL, [idHash(sessionId)]);
  const row = rows[0];
  return row ? { workspaceId: row.workspace_id, workspaceName: row.name, expiresAt: row.expires_at, tokenHash: row.token_hash } : null;
}

export async function endSession(pool: SqlPool, sessionId: string): Promise<void> {
  await pool.query('DELETE FROM console_sessions WHERE id_hash = $1', [idHash(sessionId)]);
}
