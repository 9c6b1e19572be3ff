import { timingSafeEqual } from 'node:crypto';
import type { SqlPool } from '../db/client.js';
import { GroupCommit } from '../db/group-commit.js';
import { perPool } from '../db/per-pool.js';
import { hashToken } from '../ids/ids.js';

interface TokenRow {
  token_hash: string;
  workspace_id: string;
}

const TOKENS_SQL = 'SELECT token_hash, workspace_id FROM api_tokens WHERE token_hash = ANY($1::text[])';

// Every API request looks its token up in Postgres, so a deleted token stops working at once in
// every process (docs/API.md, "Authentication"); the lookups of requests arriving together share one SELECT.
const lookups = perPool(
  (pool) =>
    new GroupCommit<string, TokenRow | null>(
      async (hashes) => {
        const { rows } = await pool.query<TokenRow>({ name: 'api-token-workspaces', text: TOKENS_SQL, values: [hashes] });
        const byHash = new Map(rows.map((r) => [r.token_hash, r]));
        return hashes.map((h) => byHash.get(h) ?? null);
      },
      { maxBatch: 500, maxInFlight: 2 },
    ),
);

/** The workspace an API token belongs to, or null. The stored hash is compared in constant time. */
export async function workspaceForToken(pool: SqlPool, token: string): Promise<string | null> {
  const tokenHash = hashToken(token);
  const row = await lookups(pool).add(tokenHash);
  if (!row) return null;
  const same = timingSafeEqual(Buffer.from(row.token_hash, 'hex'), Buffer.from(tokenHash, 'hex'));
  return same ? row.workspace_id : null;
}
