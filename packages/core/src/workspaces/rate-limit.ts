import type { Cluster, Redis } from 'ioredis';
import type { SqlPool } from '../db/client.js';
import { hashToken } from '../ids/ids.js';

/**
 * RATE_LIMIT_PER_MINUTE per API token, shared by every API process: a fixed window of one minute
 * per token, opened by its first request, counted in one round trip per key for the hits that
 * arrive together (each still gets its own place in the count). In Redis (a Lua
 * script; keys expire with their window) when the service uses Redis, else in Postgres (one
 * upsert on an unlogged table). Counts are kept under the token's hash, never the token.
 */

export interface RateLimitState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window ends and the count starts again (at least 1). */
  resetSeconds: number;
}

export interface RateLimiter {
  /** Counts one request of `token`; null when the store did not answer in time (the caller lets it through). */
  hit(token: string): Promise<RateLimitState | null>;
}

const WINDOW_MS = 60_000;
// The store is allowed this long per request; past it the request goes through unlimited, since an
// API that stops answering while the store is away would be worse than a limit briefly not applied.
const ANSWER_WITHIN_MS = 500;

// Adds n to the key's count, starting the window with its first hits; answers the count and the
// milliseconds left in the window.
const HIT_SCRIPT = `
local n = tonumber(ARGV[2])
local count = redis.call('INCRBY', KEYS[1], n)
if count == n then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {count, left}`;

type WithHit = (Redis | Cluster) & { rateLimitHits(key: string, windowMs: number, n: number): Promise<[number, number]> };

/** Counts n hits of `key` in its window: the count after them and the milliseconds the window has left. */
type Counter = (key: string, n: number) => Promise<{ count: number; leftMs: number }>;

function redisCounter(redis: Redis | Cluster, prefix: string): Counter {
  if (!('rateLimitHits' in redis)) redis.defineCommand('rateLimitHits', { numberOfKeys: 1, lua: HIT_SCRIPT });
  const client = redis as WithHit;
  return async (key, n) => {
    const [count, leftMs] = await client.rateLimitHits(`${prefix}:ratelimit:${key}`, WINDOW_MS, n);
    return { count: Number(count), leftMs: Number(leftMs) };
  };
}

// A window that has ended starts again with these hits.
const HIT_SQL = `
  INSERT INTO rate_limit_windows AS w (key, window_ends_at, count) VALUES ($1, now() + $2 * interval '1 millisecond', $3)
  ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN w.window_ends_at <= now() THEN $3 ELSE w.count + $3 END,
    window_ends_at = CASE WHEN w.window_ends_at <= now() THEN now() + $2 * interval '1 millisecond' ELSE w.window_ends_at END
  RETURNING count, greatest(0, extract(epoch FROM w.window_ends_at - now()) * 1000)::int AS left_ms`;

function postgresCounter(pool: SqlPool): Counter {
  return async (key, n) => {
    const { rows } = await pool.query<{ count: number; left_ms: number }>({ name: 'rate-limit-hits', text: HIT_SQL, values: [key, WINDOW_MS, n] });
    return { count: rows[0].count, leftMs: rows[0].left_ms };
  };
}

/** Where the counts live: Redis when the service has it, else the service's Postgres. */
export type RateLimitStore = { redis: Redis | Cluster; prefix: string } | { pool: SqlPool };

export function createRateLimiter(store: RateLimitStore, perMinute: number): RateLimiter {
  const count = 'redis' in store ? redisCounter(store.redis, store.prefix) : postgresCounter(store.pool);
  const stateOf = (position: number, leftMs: number): RateLimitState => ({
    allowed: position <= perMinute,
    limit: perMinute,
    remaining: Math.max(0, perMinute - position),
    resetSeconds: Math.max(1, Math.ceil(leftMs / 1000)),
  });
  // Hits of one key in the same turn of the event loop are counted together: one INCRBY n
  // (or one upsert) for a burst of deliveries of one workspace, or requests of one token. The
  // i-th of them is the (count - n + i)-th hit of the window, exactly as one by one.
  let pending = new Map<string, ((state: RateLimitState | null) => void)[]>();
  const flush = () => {
    const batch = pending;
    pending = new Map();
    for (const [key, waiters] of batch) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ANSWER_WITHIN_MS)));
      const answer = count(key, waiters.length).catch(() => null);
      void Promise.race([answer, late])
        .finally(() => clearTimeout(timer))
        .then((result) => waiters.forEach((resolve, i) => resolve(result && stateOf(result.count - waiters.length + i + 1, result.leftMs))));
    }
  };
  return {
    hit(token) {
      return new Promise((resolve) => {
        const key = hashToken(token);
        if (pending.size === 0) setImmediate(flush);
        const waiters = pending.get(key);
        if (waiters) waiters.push(resolve);
        else pending.set(key, [resolve]);
      });
    },
  };
}
