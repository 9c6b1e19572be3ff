/**
 * At most `size` attempts in flight in this process, whichever path started them: queue jobs,
 * held attempts and held-back ones share the same EXECUTOR_CONCURRENCY. While every slot is taken,
 * each one freed goes to the next workspace in turn among those waiting for one (round-robin), and
 * within a workspace first come, first served: a workspace with hundreds of attempts waiting
 * delays another's next attempt by at most one slot each (docs/adr/022-fair-share-between-workspaces.md).
 */
export class AttemptSlots {
  private free: number;
  // A Map keeps its insertion order: its first key is the workspace whose turn is next, and a
  // workspace served goes to the back.
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(size: number) {
    this.free = size;
  }

  async run<T>(workspaceId: string, work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free -= 1;
    else await new Promise<void>((resolve) => this.wait(workspaceId, resolve));
    try {
      return await work();
    } finally {
      this.handOn();
    }
  }

  private wait(workspaceId: string, resolve: () => void): void {
    const queue = this.waiting.get(workspaceId);
    if (queue) queue.push(resolve);
    else this.waiting.set(workspaceId, [resolve]);
  }

  private handOn(): void {
    const next = this.waiting.entries().next();
    if (next.done) {
      this.free += 1;
      return;
    }
    const [workspaceId, queue] = next.value;
    this.waiting.delete(workspaceId);
    const resolve = queue.shift()!;
    if (queue.length > 0) this.waiting.set(workspaceId, queue);
    resolve();
  }
}
