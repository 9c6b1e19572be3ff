// Throughput accounting: executions per second from the first enqueue to the last completion.

export interface RateInput {
  /** When the first unit of work was handed to the queue (ms since the epoch). */
  firstEnqueueAt: number;
  /** When each unit was recorded as succeeded (ms since the epoch), one entry per distinct unit. */
  completedAt: readonly number[];
  /** How many units were enqueued. */
  expected: number;
}

export interface RateResult {
  expected: number;
  completed: number;
  /** From the first enqueue to the last completion; null when nothing completed. */
  elapsedMs: number | null;
  /** Completions per second over elapsedMs; null when it cannot be computed. */
  perSecond: number | null;
  /** Anything that makes the figure untrustworthy; empty when it is a clean measurement. */
  problems: string[];
}

/**
 * The rate of a run. The window starts at the first enqueue (not the first completion, which
 * would hide queueing and start-up) and ends at the last completion (not at the moment the
 * harness noticed, which would add polling delay). A run where any unit did not complete is
 * reported with a problem: a rate over the units that happened to finish is not a throughput.
 */
export function throughputRate(input: RateInput): RateResult {
  const problems: string[] = [];
  const completed = input.completedAt.length;
  if (!(input.expected > 0)) problems.push('nothing was enqueued');
  if (!Number.isFinite(input.firstEnqueueAt)) problems.push('first enqueue time is unknown');
  if (completed === 0) {
    problems.push('no unit completed');
    return { expected: input.expected, completed, elapsedMs: null, perSecond: null, problems };
  }
  let first = Infinity;
  let last = -Infinity;
  for (const t of input.completedAt) {
    if (!Number.isFinite(t)) {
      problems.push('a completion time is not a number');
      return { expected: input.expected, completed, elapsedMs: null, perSecond: null, problems };
    }
    if (t < first) first = t;
    if (t > last) last = t;
  }
  if (first < input.firstEnqueueAt) problems.push(`a completion is ${input.firstEnqueueAt - first} ms before the first enqueue (wrong timestamps or stale rows)`);
  if (completed < input.expected) problems.push(`only ${completed} of ${input.expected} completed`);
  if (completed > input.expected) problems.push(`${completed} completions for ${input.expected} enqueued (duplicates or stale rows)`);
  const elapsedMs = last - input.firstEnqueueAt;
  const perSecond = elapsedMs > 0 ? (completed / elapsedMs) * 1000 : null;
  if (perSecond === null) problems.push('elapsed time is not positive');
  return { expected: input.expected, completed, elapsedMs, perSecond, problems };
}
