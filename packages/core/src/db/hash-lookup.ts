import { GroupCommit } from './group-commit.js';
import { perPool } from './per-pool.js';
import type { SqlPool } from './client.js';

/**
 * "Which of these token hashes exist", for the public endpoints, which look a token up before
 * they read a body or count a request (docs/API.md, "Quotas and rate limits"). `text` takes the hashes
 * as `$1::text[]` and returns the ones it knows as `hash`. Lookups arriving together share one
 * statement (one batcher per pool), as the trigger and settle statements do.
 */
export function hashLookup(name: string, text: string): (pool: SqlPool, hash: string) => Promise<boolean> {
  const batchers = perPool(
    (pool: SqlPool) =>
      new GroupCommit<string, boolean>(
        async (hashes) => {
          const { rows } = await pool.query<{ hash: string }>({ name, text, values: [hashes] });
          const known = new Set(rows.map((r) => r.hash));
          return hashes.map((h) => known.has(h));
        },
        { maxBatch: 500, maxInFlight: 2 },
      ),
  );
  return (pool, hash) => batchers(pool).add(hash);
}
