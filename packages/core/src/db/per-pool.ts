import type { SqlPool } from './client.js';

/**
 * One instance per connection pool, made on first use: a statement's group commit is shared by
 * every caller in the process that uses the same pool, so concurrent requests share round trips.
 */
export function perPool<T>(create: (pool: SqlPool) => T): (pool: SqlPool) => T {
  const byPool = new WeakMap<SqlPool, T>();
  return (pool) => {
    let value = byPool.get(pool);
    if (value === undefined) {
      value = create(pool);
      byPool.set(pool, value);
    }
    return value;
  };
}
