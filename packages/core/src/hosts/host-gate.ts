import type { SqlPool } from '../db/client.js';
import type { Logger } from '../logging/logger.js';
import { budgetWaits } from '../metrics/families.js';
import { decideGate, hasLimits, type HostRules, type LimiterAnswer } from './gate-decision.js';
import type { HostLimiter } from './host-limiter.js';

/** What the gate answers a request: go (with what to call once its answer is in), or deferred. */
export type GatePass = { go: true; waitedMs: number; release(): void } | { deferred: Date };

export interface HostGateOptions {
  pool: SqlPool;
  /** The shared limiter; without one (tests of other things) limits are not enforced, cool-downs are. */
  limiter: HostLimiter | null;
  logger: Logger;
  /** How long a workspace's rules are kept in memory before they are read again (ms). */
  cacheMs?: number;
  /** How long a request waits at the gate holding its claim before it is deferred instead (ms). */
  holdMs?: number;
  /** How long the limiter may take to answer before the request asks again later (ms). */
  limiterTimeoutMs?: number;
  /** How long the limiter may fail or time out without a break before requests go without it (ms). */
  limiterDownAfterMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const RULES_SQL = `
  SELECT host, max_concurrency, max_per_second, cooldown_until FROM host_limits
   WHERE workspace_id = $1 AND (max_concurrency IS NOT NULL OR max_per_second IS NOT NULL OR cooldown_until > now())`;

const COOLDOWN_SQL = `
  INSERT INTO host_limits (workspace_id, host, cooldown_until) VALUES ($1, $2, $3)
  ON CONFLICT (workspace_id, host) DO UPDATE SET cooldown_until = GREATEST(host_limits.cooldown_until, EXCLUDED.cooldown_until)`;

// Past this many workspaces in memory the cache starts again: it holds no state that matters.
const MAX_CACHED_WORKSPACES = 10_000;
// A request finding max_concurrency requests out asks again after about this long (jittered 0.5-1.5x).
const POLL_MS = 100;

type HostMap = Map<string, HostRules>;

/**
 * The gate of the attempt pipeline for host budgets and cool-downs (docs/adr/026-a-gate-in-the-attempt-pipeline.md).
 * Each workspace's rules are read from PostgreSQL at most once per `cacheMs` per process, so a
 * workspace without any limit or cool-down costs no round trip per attempt; a cool-down another
 * executor records is seen here within that time (or at once when this executor records it).
 */
export class HostGate {
  private readonly cache = new Map<string, { at: number; hosts: Promise<HostMap> }>();
  private readonly cacheMs: number;
  private readonly holdMs: number;
  private readonly limiterTimeoutMs: number;
  private readonly limiterDownAfterMs: number;
  /** When the limiter's current run of failures began; null while it answers. */
  private failingSince: number | null = null;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private warnedAt = 0;

  constructor(private readonly options: HostGateOptions) {
    this.cacheMs = options.cacheMs ?? 1_000;
    this.holdMs = options.holdMs ?? 1_000;
    this.limiterTimeoutMs = options.limiterTimeoutMs ?? 2_000;
    this.limiterDownAfterMs = options.limiterDownAfterMs ?? 5_000;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  private rulesOf(workspaceId: string): Promise<HostMap> {
    const now = this.now();
    const cached = this.cache.get(workspaceId);
    if (cached && now - cached.at < this.cacheMs) return cached.hosts;
    if (this.cache.size >= MAX_CACHED_WORKSPACES) this.cache.clear();
    const hosts = this.options.pool.query<{ host: string; max_concurrency: number | null; max_per_second: number | null; cooldown_until: Date | null }>({ name: 'host-rules', text: RULES_SQL, values: [workspaceId] }).then(
      ({ rows }) => new Map(rows.map((r) => [r.host, { maxConcurrency: r.max_concurrency, maxPerSecond: r.max_per_second, cooldownUntil: r.cooldown_until }])),
    );
    this.cache.set(workspaceId, { at: now, hosts });
    // A failed read is not kept: the next request reads again.
    hosts.catch(() => this.cache.delete(workspaceId));
    return hosts;
  }

  /**
   * Holds a request to `host` until its workspace's budget for the host has room and no cool-down
   * runs, waiting here up to `holdMs`; past that it answers deferred, with the time to try again.
   * A request that goes holds a place until it calls `release`.
   */
  async pass(workspaceId: string, host: string | null, requestHoldMs: number): Promise<GatePass> {
    const start = this.now();
    const released = { go: true as const, waitedMs: 0, release: () => undefined };
    if (host === null) return released;
    let counted = false;
    for (;;) {
      const rules = (await this.rulesOf(workspaceId)).get(host);
      let limiter: LimiterAnswer | undefined;
      let release: (() => void) | undefined;
      const decide = () => decideGate({ now: this.now(), rules, waitedMs: this.now() - start, holdMs: this.holdMs, limiter, pollMs: POLL_MS * (0.5 + Math.random()) });
      let step = decide();
      if ('ask' in step && rules && hasLimits(rules)) {
        const taken = await this.take({ workspaceId, host, maxConcurrency: rules.maxConcurrency, maxPerSecond: rules.maxPerSecond, holdMs: requestHoldMs });
        limiter = taken.answer;
        if (taken.answer === 'taken') release = taken.release;
        step = decide();
      }
      if ('go' in step) return { go: true, waitedMs: this.now() - start, release: release ?? (() => undefined) };
      if (!counted) budgetWaits.inc();
      counted = true;
      if ('deferred' in step) return step;
      if ('waitMs' in step) await this.sleep(step.waitMs);
    }
  }

  /**
   * The limiter's answer. A limiter that fails or is slow is asked again later, as if the host
   * were full (a busy store must not let requests past the budget); once it has failed for
   * `limiterDownAfterMs` without a break (Redis lost), requests go without it, so that a lost
   * store never blocks a host.
   */
  private async take(request: Parameters<HostLimiter['take']>[0]): Promise<{ answer: LimiterAnswer; release?: () => void }> {
    const limiter = this.options.limiter;
    if (!limiter) return { answer: 'taken' };
    let timer: NodeJS.Timeout | undefined;
    const asked = limiter.take(request);
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the host limiter did not answer within ${this.limiterTimeoutMs} ms`)), this.limiterTimeoutMs);
      });
      const taken = await Promise.race([asked, timeout]);
      this.failingSince = null;
      if (taken.answer !== 'taken') return { answer: taken.answer };
      return { answer: 'taken', release: () => void taken.release().catch(() => undefined) };
    } catch (error) {
      // A place taken after all, too late, is given back at once.
      asked.then((late) => (late.answer === 'taken' ? late.release() : undefined)).catch(() => undefined);
      const now = this.now();
      this.failingSince ??= now;
      if (now - this.failingSince < this.limiterDownAfterMs) return { answer: 'full' };
      if (now - this.warnedAt > 10_000) {
        this.warnedAt = now;
        this.options.logger.warn('host limiter unavailable; requests go without their host budget', { error: (error as Error).message });
      }
      return { answer: 'taken' };
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Records a host's Retry-After: the workspace's requests to it wait until `until` (a later
   * cool-down already recorded stays). Seen at once by this process, by the others within `cacheMs`.
   */
  async coolDown(workspaceId: string, host: string, until: Date): Promise<void> {
    const cached = this.cache.get(workspaceId);
    if (cached) {
      const hosts = await cached.hosts.catch(() => null);
      const rules = hosts?.get(host) ?? { maxConcurrency: null, maxPerSecond: null, cooldownUntil: null };
      if (hosts && (!rules.cooldownUntil || rules.cooldownUntil < until)) hosts.set(host, { ...rules, cooldownUntil: until });
    }
    await this.options.pool.query({ name: 'host-cooldown', text: COOLDOWN_SQL, values: [workspaceId, host, until] });
  }
}
