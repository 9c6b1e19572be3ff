import { randomUUID } from 'node:crypto';
import type { SqlPool } from '../db/client.js';
import type { LimiterAnswer } from './gate-decision.js';

/** One request's place in a host's budget: its limits and how long its place is kept at most. */
export interface LimiterRequest {
  workspaceId: string;
  host: string;
  maxConcurrency: number | null;
  maxPerSecond: number | null;
  /** The place frees itself after this long even if never released (a crashed executor, a lost answer). */
  holdMs: number;
}

/**
 * The limiter every executor shares (Redis, or PostgreSQL when the queues are there). A taken place
 * answers the function that gives it back once the request's answer is in.
 */
export interface HostLimiter {
  take(request: LimiterRequest): Promise<{ answer: Exclude<LimiterAnswer, 'taken'> } | { answer: 'taken'; release(): Promise<void> }>;
}

const intervalMs = (perSecond: number | null) => (perSecond === null ? null : 1000 / perSecond);

/** What the limiter needs of a Redis client (ioredis). */
export interface RedisEval {
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

// KEYS: the host's places out (a sorted set scored by expiry) and its next allowed start (GCRA).
// ARGV: max_concurrency (0: none), the rate's interval in ms (0: none), hold ms, token. Redis's own
// clock serves every executor, so their clocks need not agree. Answers 0 taken, -1 full, or the
// ms until the rate allows the next start. Both keys expire, so a lost executor or a flushed Redis
// never holds a host back longer than a request's hold or one interval.
const TAKE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local max = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local hold = tonumber(ARGV[3])
if max > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if redis.call('ZCARD', KEYS[1]) >= max then return -1 end
end
if interval > 0 then
  local nextAt = tonumber(redis.call('GET', KEYS[2]) or '0')
  if nextAt > now then return math.max(1, math.ceil(nextAt - now)) end
  nextAt = math.max(nextAt, now - interval / 4) + interval
  redis.call('SET', KEYS[2], tostring(nextAt), 'PX', math.ceil(interval) + 1000)
end
if max > 0 then
  redis.call('ZADD', KEYS[1], now + hold, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], hold + 1000)
end
return 0`;

function answerOf(code: number): Exclude<LimiterAnswer, 'taken'> {
  return code < 0 ? 'full' : { waitMs: code };
}

/** The limiter in Redis: one script call per take, one ZREM per release. */
export function redisHostLimiter(redis: RedisEval & { zrem(key: string, member: string): Promise<unknown> }, prefix: string): HostLimiter {
  return {
    async take(request) {
      // One hash tag per workspace and host keeps both keys in one slot of a Redis Cluster.
      const tag = `${prefix}:host-budget:{${request.workspaceId} ${request.host}}`;
      const token = randomUUID();
      const code = Number(
        await redis.eval(TAKE_SCRIPT, 2, `${tag}:out`, `${tag}:next`, request.maxConcurrency ?? 0, intervalMs(request.maxPerSecond) ?? 0, request.holdMs, token),
      );
      if (code !== 0) return { answer: answerOf(code) };
      const release = async () => {
        if (request.maxConcurrency !== null) await redis.zrem(`${tag}:out`, token);
      };
      return { answer: 'taken', release };
    },
  };
}

/** The limiter in PostgreSQL (host_budget_take, see its migration): one statement per take and per release. */
export function postgresHostLimiter(pool: SqlPool): HostLimiter {
  return {
    async take(request) {
      const token = randomUUID();
      const { rows } = await pool.query<{ code: number }>({
        name: 'host-budget-take',
        text: 'SELECT host_budget_take($1, $2, $3, $4, $5, $6) AS code',
        values: [request.workspaceId, request.host, token, request.maxConcurrency, intervalMs(request.maxPerSecond), request.holdMs],
      });
      const code = rows[0].code;
      if (code !== 0) return { answer: answerOf(code) };
      const release = async () => {
        if (request.maxConcurrency === null) return;
        await pool.query({ name: 'host-budget-release', text: 'DELETE FROM host_budget_slots WHERE workspace_id = $1 AND host = $2 AND token = $3', values: [request.workspaceId, request.host, token] });
      };
      return { answer: 'taken', release };
    },
  };
}
