import type { SqlPool } from '../src/db/client.js';

/**
 * A stand-in for `real` that counts the statements sent under each prepared name, for tests
 * that prove work is batched. Being a pool of its own, it also gets batchers of its own.
 */
export function countingPool(real: SqlPool): { pool: SqlPool; statements: Map<string, number> } {
  const statements = new Map<string, number>();
  const pool = {
    query: (config: { name?: string }, ...rest: unknown[]) => {
      if (config.name) statements.set(config.name, (statements.get(config.name) ?? 0) + 1);
      return (real.query as (...args: unknown[]) => unknown)(config, ...rest);
    },
  } as unknown as SqlPool;
  return { pool, statements };
}
