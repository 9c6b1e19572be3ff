import { executionJobId } from '@cronsvc/core';

export interface HeldAttempt {
  executionId: string;
  attempt: number;
  /** When it is due, ms since the epoch. */
  runAt: number;
}

/**
 * Attempts taken from the queue before they are due, each started by a local timer at its
 * time, which is precise where Redis's delayed jobs are not. Their queue jobs are done: Postgres
 * still has the executions queued, so if this process dies the reconciler queues them again.
 * An attempt held twice (the same queue job delivered again) keeps its first timer.
 */
export class HeldAttempts {
  private readonly timers = new Map<string, { item: HeldAttempt; timer: NodeJS.Timeout }>();

  constructor(
    private readonly start: (item: HeldAttempt) => void,
    private readonly limit: number,
  ) {}

  get size(): number {
    return this.timers.size;
  }

  /** False when the process holds its limit already: the caller leaves the attempt to the queue. */
  hold(item: HeldAttempt): boolean {
    const key = executionJobId(item.executionId, item.attempt);
    if (this.timers.has(key)) return true;
    if (this.timers.size >= this.limit) return false;
    this.arm(key, item);
    return true;
  }

  private arm(key: string, item: HeldAttempt): void {
    const timer = setTimeout(() => {
      // Timers run on a monotonic clock and can fire a millisecond before Date.now() reaches
      // runAt; started then, the claim would find the execution not due yet.
      if (Date.now() < item.runAt) return this.arm(key, item);
      this.timers.delete(key);
      this.start(item);
    }, Math.max(0, item.runAt - Date.now()));
    this.timers.set(key, { item, timer });
  }

  /** Cancels every timer and returns what was held, for the caller to hand back to the queue. */
  release(): HeldAttempt[] {
    const items = [...this.timers.values()].map(({ item, timer }) => {
      clearTimeout(timer);
      return item;
    });
    this.timers.clear();
    return items;
  }
}
