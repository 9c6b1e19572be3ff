/**
 * First attempts of the deliveries this notifier's relay just wrote, sent from memory: at most
 * `concurrency` at a time, in the order they came. They are `pending` in Postgres all along, so
 * if the process dies with some still here, another notifier takes them over when this one's
 * heartbeat stops (dead-notifiers.ts), and the delivery reconciler is the net behind it.
 */
export class LocalSends {
  private readonly waiting: string[] = [];
  private running = 0;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly send: (deliveryId: string) => Promise<void>,
    private readonly concurrency: number,
  ) {}

  push(deliveryIds: string[]): void {
    this.waiting.push(...deliveryIds);
    this.pump();
  }

  /** Deliveries handed over and not finished yet. */
  get backlog(): number {
    return this.waiting.length + this.running;
  }

  /** Stops starting new sends; waits for those in flight and returns the ids never started. */
  async drain(): Promise<string[]> {
    const left = this.stopStarting();
    await this.settled();
    return left;
  }

  /** Stops starting new sends and returns the ids never started. */
  stopStarting(): string[] {
    return this.waiting.splice(0);
  }

  /** Resolves when the sends in flight now have ended. */
  async settled(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  private pump(): void {
    while (this.running < this.concurrency && this.waiting.length > 0) {
      const id = this.waiting.shift()!;
      this.running += 1;
      const run = this.send(id).finally(() => {
        this.running -= 1;
        this.inFlight.delete(run);
        this.pump();
      });
      this.inFlight.add(run);
    }
  }
}
