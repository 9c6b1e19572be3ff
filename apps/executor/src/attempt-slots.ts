/**
 * At most `size` attempts in flight in this process, whichever path started them: queue jobs
 * and held attempts share the same EXECUTOR_CONCURRENCY. Waiters go first come, first served.
 */
export class AttemptSlots {
  private free: number;
  private readonly waiters: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free -= 1;
    else await new Promise<void>((resolve) => this.waiters.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiters.shift();
      if (next) next();
      else this.free += 1;
    }
  }
}
