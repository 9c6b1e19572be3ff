/**
 * Group commit: items added while earlier batches are in flight wait, and leave together in
 * the next batch, so under load a thousand items cost a handful of round trips while a lone
 * item leaves at once (after the current turn of the event loop, so items added in the same
 * turn share its trip).
 *
 * `run` gets the items of one batch and returns one result per item, in order. A batch is
 * one statement, so when it fails nothing of it happened: each of its items is then run again
 * alone, and only the item that really fails sees the error. With `retryAlone: false` every item
 * of a failed batch gets the batch's error instead (a failure that is not any one item's, such as
 * an unreachable server, would only be waited for again item by item).
 */
export class GroupCommit<In, Out> {
  private pending: { item: In; resolve: (out: Out) => void; reject: (error: unknown) => void }[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly run: (items: In[]) => Promise<Out[]>,
    private readonly options: { maxBatch: number; maxInFlight: number; retryAlone?: boolean },
  ) {}

  add(item: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.drain();
        });
      }
    });
  }

  private drain(): void {
    while (this.inFlight < this.options.maxInFlight && this.pending.length > 0) {
      const batch = this.pending.splice(0, this.options.maxBatch);
      this.inFlight += 1;
      void this.flush(batch).finally(() => {
        this.inFlight -= 1;
        this.drain();
      });
    }
  }

  private async flush(batch: typeof this.pending): Promise<void> {
    try {
      const outs = await this.run(batch.map((b) => b.item));
      batch.forEach((b, i) => b.resolve(outs[i]));
    } catch (error) {
      if (batch.length === 1 || this.options.retryAlone === false) {
        for (const b of batch) b.reject(error);
        return;
      }
      await Promise.all(
        batch.map(async (b) => {
          try {
            b.resolve((await this.run([b.item]))[0]);
          } catch (alone) {
            b.reject(alone);
          }
        }),
      );
    }
  }
}
