import { createRateLimiter } from '../src/workspaces/rate-limit.js';
import { useWorkspace } from './factories.js';

// Hits of one key that arrive together are counted in one round trip, and each still gets its own
// place in the window's count: a burst is limited exactly as the same hits one by one would be.
const w = useWorkspace();

describe.each(['redis', 'postgres'] as const)('the rate limiter on %s', (backend) => {
  const store = () => (backend === 'redis' ? { redis: w.ctx.runtime.redis!, prefix: w.ctx.config.redisPrefix } : { pool: w.ctx.runtime.pool });

  it('lets exactly the limit through of a burst, each hit in its own place of the count', async () => {
    const limiter = createRateLimiter(store(), 6);
    const states = await Promise.all(Array.from({ length: 10 }, () => limiter.hit(`burst-${backend}`)));
    expect(states.map((s) => s?.allowed)).toEqual([true, true, true, true, true, true, false, false, false, false]);
    expect(states.map((s) => s?.remaining)).toEqual([5, 4, 3, 2, 1, 0, 0, 0, 0, 0]);
    // The same window goes on: the next hit is the eleventh.
    expect((await limiter.hit(`burst-${backend}`))?.allowed).toBe(false);
    // Another key has a count of its own.
    expect((await limiter.hit(`other-${backend}`))?.remaining).toBe(5);
  });
});
