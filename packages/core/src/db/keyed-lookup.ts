import { GroupCommit } from './group-commit.js';
import { perPool } from './per-pool.js';
import type { SqlPool } from './client.js';

/**
 * A lookup by key whose concurrent calls share one statement (one batcher per pool), as claims and
 * settles do: `text` takes the keys as `$1::text[]`, and `keyOf` reads the key of each row it
 * returns. Each call gets its key's row, or null; several calls for one key all get it.
 */
export function keyedLookup<Row>(name: string, text: string, keyOf: (row: Row) => string): (pool: SqlPool, key: string) => Promise<Row | null> {
  const batchers = perPool(
    (pool: SqlPool) =>
      new GroupCommit<string, Row | null>(
        async (keys) => {
          const { rows } = await pool.query<Row & object>({ name, text, values: [keys] });
          const byKey = new Map(rows.map((row) => [keyOf(row), row]));
          return keys.map((key) => byKey.get(key) ?? null);
        },
        { maxBatch: 500, maxInFlight: 2 },
      ),
  );
  return (pool, key) => batchers(pool).add(key);
}

/**
 * "Which of these token hashes exist", for the public endpoints, which look a token up before
 * they read a body or count a request (docs/API.md, "Quotas and rate limits"). `text` returns the
 * hashes it knows as `hash`.
 */
export function hashLookup(name: string, text: string): (pool: SqlPool, hash: string) => Promise<boolean> {
  const lookup = keyedLookup<{ hash: string }>(name, text, (row) => row.hash);
  return async (pool, hash) => (await lookup(pool, hash)) !== null;
}
