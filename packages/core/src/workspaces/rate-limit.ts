import type { Cluster, Redis } from 'ioredis';
import type { SqlPool } from '../db/client.js';
import { hashToken } from '../ids/ids.js';

/**
 * RATE_LIMIT_PER_MINUTE per API token, shared by every API process: a fixed window of one minute
 * per token, opened by its first request, counted in one round trip per request. In Redis (a Lua
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

// Adds one to the token's count, starting the window with the first request; answers the count
// and the milliseconds left in the window.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {count, left}`;

type WithHit = (Redis | Cluster) & { rateLimitHit(key: string, windowMs: number): Promise<[number, number]> };

/** Counts one hit of `key` in its window: the count so far and the milliseconds the window has left. */
type Counter = (key: string) => Promise<{ count: number; leftMs: number }>;

function redisCounter(redis: Redis | Cluster, prefix: string): Counter {
  if (!('rateLimitHit' in redis)) redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  const client = redis as WithHit;
  return async (key) => {
    const [count, leftMs] = await client.rateLimitHit(`${prefix}:ratelimit:${key}`, WINDOW_MS);
    return { count: Number(count), leftMs: Number(leftMs) };
  };
}

// A window that has ended starts again at this request.
const HIT_SQL = `
  INSERT INTO rate_limit_windows AS w (key, window_ends_at, count) VALUES ($1, now() + $2 * interval '1 millisecond', 1)
  ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN w.window_ends_at <= now() THEN 1 ELSE w.count + 1 END,
    window_ends_at = CASE WHEN w.window_ends_at <= now() THEN now() + $2 * interval '1 millisecond' ELSE w.window_ends_at END
  RETURNING count, greatest(0, extract(epoch FROM w.window_ends_at - now()) * 1000)::int AS left_ms`;

function postgresCounter(pool: SqlPool): Counter {
  return async (key) => {
    const { rows } = await pool.query<{ count: number; left_ms: number }>({ name: 'rate-limit-hit', text: HIT_SQL, values: [key, WINDOW_MS] });
    return { count: rows[0].count, leftMs: rows[0].left_ms };
  };
}

/** Where the counts live: Redis when the service has it, else the service's Postgres. */
export type RateLimitStore = { redis: Redis | Cluster; prefix: string } | { pool: SqlPool };

export function createRateLimiter(store: RateLimitStore, perMinute: number): RateLimiter {
  const count = 'redis' in store ? redisCounter(store.redis, store.prefix) : postgresCounter(store.pool);
  return {
    async hit(token) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ANSWER_WITHIN_MS)));
      const answer = count(hashToken(token)).catch(() => null);
      const result = await Promise.race([answer, late]).finally(() => clearTimeout(timer));
      if (!result) return null;
      return {
        allowed: result.count <= perMinute,
        limit: perMinute,
        remaining: Math.max(0, perMinute - result.count),
        resetSeconds: Math.max(1, Math.ceil(result.leftMs / 1000)),
      };
    },
  };
}
