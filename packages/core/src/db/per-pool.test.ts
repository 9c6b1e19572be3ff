import type { SqlPool } from './client.js';
import { perPool } from './per-pool.js';

it('makes one instance per pool, on first use', () => {
  let made = 0;
  const forPool = perPool(() => ({ n: ++made }));
  const [p, q] = [{} as SqlPool, {} as SqlPool];
  expect(made).toBe(0);
  expect(forPool(p)).toBe(forPool(p));
  expect(forPool(q)).not.toBe(forPool(p));
  expect(made).toBe(2);
});
