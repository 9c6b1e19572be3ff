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
  /** How long the request may still wait for its start: a start further off is answered as a wait, and kept for no one. */
  maxWaitMs: number;
}

/** A place taken: the request starts in `startInMs` (the start the rate kept for it), and gives the place back once its answer is in. */
export interface TakenPlace {
  answer: 'taken';
  startInMs: number;
  release(): Promise<void>;
}

/**
 * The limiter every executor shares (Redis, or PostgreSQL when the queues are there). A take answers
 * a place, `full` (max_concurrency requests out) or the wait until the rate allows the next start.
 */
export interface HostLimiter {
  take(request: LimiterRequest): Promise<{ answer: Exclude<LimiterAnswer, 'taken'> } | TakenPlace>;
}

const intervalMs = (perSecond: number | null) => (perSecond === null ? null : 1000 / perSecond);

/** What the limiter needs of a Redis client (ioredis). */
export interface RedisEval {
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

// Both stores answer a pair: [1, ms until the start kept for the request] taken, [0, ms] the next
// start is further off than the request may wait (nothing kept), [-1, 0] max_concurrency requests out.
type Answer = [number, number];

// KEYS: the host's places out (a sorted set scored by expiry) and its next allowed start (GCRA).
// ARGV: max_concurrency (0: none), the rate's interval in ms (0: none), hold ms, token, max wait ms.
// Redis's own clock serves every executor, so their clocks need not agree. A start within the
// request's wait is kept for it (the next one moves on by an interval), so a waiting request asks
// once, not at every start another request gets. Both keys expire, so a lost executor or a flushed
// Redis never holds a host back longer than a request's hold or one interval past the last start.
const TAKE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local max = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local hold = tonumber(ARGV[3])
local maxWait = tonumber(ARGV[5])
if max > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if redis.call('ZCARD', KEYS[1]) >= max then return {-1, 0} end
end
local startIn = 0
if interval > 0 then
  local nextAt = tonumber(redis.call('GET', KEYS[2]) or '0')
  if nextAt > now then
    startIn = math.ceil(nextAt - now)
    if startIn > maxWait then return {0, startIn} end
  end
  nextAt = math.max(nextAt, now - interval / 4) + interval
  redis.call('SET', KEYS[2], tostring(nextAt), 'PX', math.ceil(nextAt - now) + 1000)
end
if max > 0 then
  redis.call('ZADD', KEYS[1], now + startIn + hold, ARGV[4])
  if redis.call('PTTL', KEYS[1]) < startIn + hold + 1000 then redis.call('PEXPIRE', KEYS[1], startIn + hold + 1000) end
end
return {1, startIn}`;

function answerOf([code, ms]: Answer, release: () => Promise<void>): Awaited<ReturnType<HostLimiter['take']>> {
  if (code > 0) return { answer: 'taken', startInMs: ms, release };
  return { answer: code < 0 ? 'full' : { waitMs: ms } };
}

/** The limiter in Redis: one script call per take, one ZREM per release. */
export function redisHostLimiter(redis: RedisEval & { zrem(key: string, member: string): Promise<unknown> }, prefix: string): HostLimiter {
  return {
    async take(request) {
      // One hash tag per workspace and host keeps both keys in one slot of a Redis Cluster.
      const tag = `${prefix}:host-budget:{${request.workspaceId} ${request.host}}`;
      const token = randomUUID();
      const args = [request.maxConcurrency ?? 0, intervalMs(request.maxPerSecond) ?? 0, request.holdMs, token, Math.max(0, Math.floor(request.maxWaitMs))];
      const answer = (await redis.eval(TAKE_SCRIPT, 2, `${tag}:out`, `${tag}:next`, ...args)) as Answer;
      return answerOf(answer.map(Number) as Answer, async () => {
        if (request.maxConcurrency !== null) await redis.zrem(`${tag}:out`, token);
      });
    },
  };
}

/** The limiter in PostgreSQL (host_budget_reserve, see its migration): one statement per take and per release. */
export function postgresHostLimiter(pool: SqlPool): HostLimiter {
  return {
    async take(request) {
      const token = randomUUID();
      const { rows } = await pool.query<{ answer: Answer }>({
        name: 'host-budget-reserve',
        text: 'SELECT host_budget_reserve($1, $2, $3, $4, $5, $6, $7) AS answer',
        values: [request.workspaceId, request.host, token, request.maxConcurrency, intervalMs(request.maxPerSecond), request.holdMs, Math.max(0, Math.floor(request.maxWaitMs))],
      });
      return answerOf(rows[0].answer, async () => {
        if (request.maxConcurrency === null) return;
        await pool.query({ name: 'host-budget-release', text: 'DELETE FROM host_budget_slots WHERE workspace_id = $1 AND host = $2 AND token = $3', values: [request.workspaceId, request.host, token] });
      });
    },
  };
}
