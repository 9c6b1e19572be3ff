import type { Config } from '../config/config.js';
import type { Db } from '../db/client.js';
import { decryptValue, valuePlace } from './crypto.js';

export interface ResolvedSecrets {
  values: Map<string, string>;
  /** Names asked for that the workspace does not have (deleted since the job was saved). */
  missing: string[];
}

/** Loads and decrypts the named secrets of a workspace in one query; only these, never the whole set. */
export async function resolveSecrets(deps: { db: Db; config: Pick<Config, 'secretsEncryptionKey'> }, workspaceId: string, names: string[]): Promise<ResolvedSecrets> {
  if (names.length === 0) return { values: new Map(), missing: [] };
  const rows = await deps.db.secret.findMany({ where: { workspaceId, name: { in: names } }, select: { id: true, name: true, value: true } });
  const values = new Map(rows.map((r) => [r.name, decryptValue(deps.config.secretsEncryptionKey, r.value, valuePlace('secrets.value', workspaceId, r.id))]));
  return { values, missing: names.filter((n) => !values.has(n)) };
}
