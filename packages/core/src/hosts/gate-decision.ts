/**
 * The host gate's decisions (docs/adr/026-a-gate-in-the-attempt-pipeline.md), as pure functions:
 * given a host's rules, what the shared limiter answered and how long the request has waited,
 * whether it goes, waits here a little longer, or is deferred (its claim released, no attempt).
 */

/** A workspace's rules for one host: its limits (null: none) and its Retry-After cool-down. */
export interface HostRules {
  maxConcurrency: number | null;
  maxPerSecond: number | null;
  cooldownUntil: Date | null;
}

/** What the shared limiter answered: taken, full (max_concurrency out, no known wait), or the ms until the rate allows one. */
export type LimiterAnswer = 'taken' | 'full' | { waitMs: number };

export interface GateInput {
  now: number;
  rules: HostRules | undefined;
  /** How long this request has waited in the gate so far (ms). */
  waitedMs: number;
  /** How long a request may wait in the gate holding its claim before it is deferred instead (ms). */
  holdMs: number;
  /** What the limiter answered at `now`; undefined when it has not been asked yet. */
  limiter?: LimiterAnswer;
  /** How long a request finding max_concurrency requests out waits before asking again (ms). */
  pollMs: number;
}

export type GateStep =
  | { go: true }
  /** The host has limits: take a place from the shared limiter. */
  | { ask: true }
  /** Wait this long here, then decide again. */
  | { waitMs: number }
  /** Release the claim; the next attempt is due then. */
  | { deferred: Date };

export const hasLimits = (rules: HostRules): boolean => rules.maxConcurrency !== null || rules.maxPerSecond !== null;

/** The next step of a request at the gate. */
export function decideGate(input: GateInput): GateStep {
  const { now, rules, waitedMs, holdMs } = input;
  if (!rules) return { go: true };
  const holdLeft = holdMs - waitedMs;
  const wait = (ms: number): GateStep => (ms <= holdLeft ? { waitMs: ms } : { deferred: new Date(now + ms) });
  const cooling = rules.cooldownUntil ? rules.cooldownUntil.getTime() - now : 0;
  if (cooling > 0) return wait(cooling);
  if (!hasLimits(rules) || input.limiter === 'taken') return { go: true };
  if (input.limiter === undefined) return { ask: true };
  return wait(input.limiter === 'full' ? input.pollMs : Math.max(1, input.limiter.waitMs));
}

/** The host name a request's budget and cool-down are kept under: the URL's, lower-case, without port. */
export function hostOf(url: string): string | null {
  try {
    const host = new URL(url).hostname.toLowerCase();
    return host === '' ? null : host;
  } catch {
    return null;
  }
}
