import { executionJobId } from '@cronsvc/core';

export interface HeldAttempt {
  executionId: string;
  attempt: number;
  /** The execution's workspace, as the queue payload named it. */
  workspaceId?: string;
  /** When it is due, ms since the epoch. */
  runAt: number;
  /** The enqueue's span, as the queue payload carried it. */
  traceparent?: string;
}

/**
 * Attempts taken from the queue before they are due, started by a local timer at their time,
 * which is precise where Redis's delayed jobs are not. Attempts due at the same moment share one
 * timer and are started together. Their queue jobs are done: Postgres still has the executions
 * queued, so if this process dies the reconciler queues them again. An attempt held twice (the
 * same queue job delivered again) keeps its first place.
 */
export class HeldAttempts {
  private readonly keys = new Set<string>();
  private readonly groups = new Map<number, { items: HeldAttempt[]; timer: NodeJS.Timeout }>();

  constructor(
    private readonly start: (items: HeldAttempt[]) => void,
    private readonly limit: number,
  ) {}

  get size(): number {
    return this.keys.size;
  }

  /** False when the process holds its limit already: the caller leaves the attempt to the queue. */
  hold(item: HeldAttempt): boolean {
    const key = executionJobId(item.executionId, item.attempt);
    if (this.keys.has(key)) return true;
    if (this.keys.size >= this.limit) return false;
    this.keys.add(key);
    const group = this.groups.get(item.runAt);
    if (group) group.items.push(item);
    else this.groups.set(item.runAt, { items: [item], timer: this.arm(item.runAt) });
    return true;
  }

  private arm(runAt: number): NodeJS.Timeout {
    return setTimeout(() => {
      const group = this.groups.get(runAt);
      if (!group) return;
      // Timers run on a monotonic clock and can fire a millisecond before Date.now() reaches
      // runAt; started then, the claim would find the execution not due yet.
      if (Date.now() < runAt) {
        group.timer = this.arm(runAt);
        return;
      }
      this.groups.delete(runAt);
      for (const item of group.items) this.keys.delete(executionJobId(item.executionId, item.attempt));
      this.start(group.items);
    }, Math.max(0, runAt - Date.now()));
  }

  /** Cancels every timer and returns what was held, for the caller to hand back to the queue. */
  release(): HeldAttempt[] {
    const items = [...this.groups.values()].flatMap(({ items, timer }) => {
      clearTimeout(timer);
      return items;
    });
    this.groups.clear();
    this.keys.clear();
    return items;
  }
}
