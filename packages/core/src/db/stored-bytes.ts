import type { SqlPool } from './client.js';
import { AppError } from '../errors/app-error.js';
import { hasSqlState } from '../errors/sql-state.js';

/**
 * MAX_STORED_BYTES_PER_WORKSPACE (docs/API.md, "Quotas and rate limits"). Each row a workspace
 * stores of its own choosing (a job definition, a secret, a trigger input) carries its size in
 * `stored_bytes`, computed here when the row is written; triggers of the stored_bytes migration
 * keep each workspace's total and fail a statement that takes it over the limit with SQLSTATE
 * CQ002. This module holds the service's side: how a row is measured, the connection setting that
 * carries the limit, and the error a refused write answers.
 */

const LIMIT_SETTING = 'cronsvc.max_stored_bytes_per_workspace';
const OVER_LIMIT = 'CQ002';

/** The size of what is stored: each text's UTF-8 bytes, each other value's JSON text; null and undefined count nothing. */
export function storedSize(...values: unknown[]): number {
  let bytes = 0;
  for (const value of values) {
    if (value === null || value === undefined) continue;
    bytes += Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value));
  }
  return bytes;
}

/** The `options` of a connection that holds its workspaces to `maxBytes` (see poolConfig). */
export function storedBytesConnectionOption(maxBytes: number): string {
  return `-c ${LIMIT_SETTING}=${Math.floor(maxBytes)}`;
}

/** 409 limit_exceeded: what the workspace stores would pass its limit. */
export function storedBytesExceeded(maxBytes: number): AppError {
  return new AppError(
    'limit_exceeded',
    `this workspace would store more than ${maxBytes} bytes of job definitions, secrets and trigger inputs (MAX_STORED_BYTES_PER_WORKSPACE); delete jobs, secrets or executions to make room`,
  );
}

/** Whether a statement failed because it would have taken a workspace past its limit (pg or Prisma error). */
export function isStoredBytesError(error: unknown): boolean {
  return hasSqlState(error, OVER_LIMIT) || /over its limit of \d+ stored bytes/.test(String((error as { message?: unknown })?.message));
}

/** Runs a write, answering 409 limit_exceeded when the database refused it for the workspace's stored bytes. */
export async function withinStoredBytes<T>(maxBytes: number, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isStoredBytesError(error)) throw storedBytesExceeded(maxBytes);
    throw error;
  }
}

/** Whether `bytes` more would take the workspace past `maxBytes`, as its total stands now. */
export async function wouldExceedStoredBytes(pool: SqlPool, workspaceId: string, bytes: number, maxBytes: number): Promise<boolean> {
  const { rows } = await pool.query<{ n: string }>({ name: 'stored-bytes-total', text: 'SELECT n FROM stored_bytes_totals WHERE workspace_id = $1', values: [workspaceId] });
  return Number(rows[0]?.n ?? 0) + bytes > maxBytes;
}
