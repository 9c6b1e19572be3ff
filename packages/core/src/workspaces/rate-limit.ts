import type { Redis } from 'ioredis';
import { hashToken } from './workspaces.js';

/**
 * RATE_LIMIT_PER_MINUTE per API token, shared by every API process through Redis: a fixed
 * window of one minute per token, opened by its first request, counted by one Lua script (one
 * round trip per request). Keys hold the token's hash, never the token, and expire with their
 * window.
 */

export interface RateLimitState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window ends and the count starts again (at least 1). */
  resetSeconds: number;
}

export interface RateLimiter {
  /** Counts one request of `token`; null when Redis did not answer in time (the caller lets it through). */
  hit(token: string): Promise<RateLimitState | null>;
}

const WINDOW_MS = 60_000;
// Redis is allowed this long per request; past it the request goes through unlimited, since an
// API that stops answering while Redis is away would be worse than a limit briefly not applied.
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

type WithHit = Redis & { rateLimitHit(key: string, windowMs: number): Promise<[number, number]> };

export function createRateLimiter(redis: Redis, prefix: string, perMinute: number): RateLimiter {
  if (!('rateLimitHit' in redis)) redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  const client = redis as WithHit;
  return {
    async hit(token) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ANSWER_WITHIN_MS)));
      const answer = client.rateLimitHit(`${prefix}:ratelimit:${hashToken(token)}`, WINDOW_MS).then(
        ([count, leftMs]) => ({ count: Number(count), leftMs: Number(leftMs) }),
        () => null,
      );
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
