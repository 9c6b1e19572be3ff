import type pg from 'pg';
import { withMigrationLock } from '../db/migrate.js';
import { decryptValue, encryptValue, isEncrypted, LEGACY_PREFIX, valuePlace, type EncryptedColumn } from './crypto.js';

/**
 * Rewrites every encrypted value still in an older form as `enc2:` (bound to its row, under the
 * derived key; see crypto.ts), and encrypts the tokens and keys stored in clear before: ping
 * tokens and bare `whsec_` signing keys. It needs SECRETS_ENCRYPTION_KEY, which SQL migrations do
 * not have, so it runs in code: at the start of every app and in `npm run migrate` when the key is
 * set, under the migration lock, after the SQL migrations. Once everything is rewritten a row in
 * `stored_value_upgrades` says so and later starts skip it without reading the tables.
 *
 * Each row is rewritten only if it still holds the value read (compare-and-set), so a value
 * changed meanwhile by a process of the previous version is left for the next start. A value
 * that does not open with this key is left as it is and counted. Either way the upgrade is not
 * marked done, and the next start tries again (with the right key).
 */

export const STORED_VALUES_UPGRADE = 'values-enc2';

interface Rewrite {
  column: EncryptedColumn;
  /** The column holding the row's workspace id (a workspace's own id for its keys). */
  workspaceColumn: 'workspace_id' | 'id';
  /** Whether the column may hold values in clear from before they were encrypted. */
  clearBefore: boolean;
}

const REWRITES: Rewrite[] = [
  { column: 'secrets.value', workspaceColumn: 'workspace_id', clearBefore: false },
  { column: 'notification_channels.credentials', workspaceColumn: 'workspace_id', clearBefore: false },
  { column: 'jobs.webhook_token', workspaceColumn: 'workspace_id', clearBefore: false },
  { column: 'workspaces.signing_key', workspaceColumn: 'id', clearBefore: true },
  { column: 'workspaces.previous_signing_key', workspaceColumn: 'id', clearBefore: true },
  { column: 'monitors.ping_token', workspaceColumn: 'workspace_id', clearBefore: true },
];

const BATCH = 500;

export interface UpgradeSummary {
  /** Values rewritten now, by column. */
  rewritten: Partial<Record<EncryptedColumn, number>>;
  /** Values that did not open with this key, by column. */
  unreadable: Partial<Record<EncryptedColumn, number>>;
  /** Whether every value is in the current form now (else the next start tries again). */
  done: boolean;
}

async function rewriteColumn(client: pg.Client, key: Buffer, rewrite: Rewrite): Promise<{ rewritten: number; unreadable: number; changedMeanwhile: number }> {
  const [table, column] = rewrite.column.split('.');
  const pending = rewrite.clearBefore ? `${column} NOT LIKE 'enc2:%'` : `${column} LIKE '${LEGACY_PREFIX}%'`;
  const select = `SELECT id, ${rewrite.workspaceColumn} AS workspace_id, ${column} AS value FROM ${table}
                   WHERE ${column} IS NOT NULL AND ${pending} AND id > $1 ORDER BY id LIMIT ${BATCH}`;
  const update = `UPDATE ${table} AS t SET ${column} = v.new
                    FROM unnest($1::text[], $2::text[], $3::text[]) AS v(id, old, new)
                   WHERE t.id = v.id AND t.${column} = v.old`;
  let after = '';
  let rewritten = 0;
  let unreadable = 0;
  let changedMeanwhile = 0;
  for (;;) {
    const { rows } = await client.query<{ id: string; workspace_id: string; value: string }>(select, [after]);
    if (rows.length === 0) return { rewritten, unreadable, changedMeanwhile };
    after = rows[rows.length - 1].id;
    const changed: { id: string; old: string; new: string }[] = [];
    for (const row of rows) {
      const place = valuePlace(rewrite.column, row.workspace_id, row.id);
      try {
        const plaintext = isEncrypted(row.value) ? decryptValue(key, row.value, place) : row.value;
        changed.push({ id: row.id, old: row.value, new: encryptValue(key, plaintext, place) });
      } catch {
        unreadable += 1;
      }
    }
    if (changed.length > 0) {
      const result = await client.query(update, [changed.map((c) => c.id), changed.map((c) => c.old), changed.map((c) => c.new)]);
      rewritten += result.rowCount ?? 0;
      changedMeanwhile += changed.length - (result.rowCount ?? 0);
    }
  }
}

export async function upgradeStoredValues(databaseUrl: string, key: Buffer): Promise<UpgradeSummary> {
  return withMigrationLock(databaseUrl, async (client) => {
    const summary: UpgradeSummary = { rewritten: {}, unreadable: {}, done: true };
    const finished = await client.query('SELECT 1 FROM stored_value_upgrades WHERE name = $1', [STORED_VALUES_UPGRADE]);
    if (finished.rowCount) return summary;
    for (const rewrite of REWRITES) {
      const { rewritten, unreadable, changedMeanwhile } = await rewriteColumn(client, key, rewrite);
      if (rewritten > 0) summary.rewritten[rewrite.column] = rewritten;
      if (unreadable > 0) summary.unreadable[rewrite.column] = unreadable;
      if (unreadable + changedMeanwhile > 0) summary.done = false;
    }
    if (summary.done) await client.query('INSERT INTO stored_value_upgrades (name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [STORED_VALUES_UPGRADE]);
    return summary;
  });
}
