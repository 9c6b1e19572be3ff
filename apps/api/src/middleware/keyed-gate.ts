/**
 * At most `perKey` holders of one key at a time; the others wait, in the order they came. Keys
 * with nobody holding or waiting are forgotten, so a gate keyed by workspace stays as small as
 * the set of workspaces busy right now.
 */
export class KeyedGate {
  private readonly holders = new Map<string, number>();
  private readonly queues = new Map<string, (() => void)[]>();

  constructor(readonly perKey: number) {}

  /** Waits for a place under `key`; the function it resolves to gives the place back (once, however often it is called). */
  async enter(key: string): Promise<() => void> {
    const held = this.holders.get(key) ?? 0;
    if (held < this.perKey) this.holders.set(key, held + 1);
    else await new Promise<void>((resolve) => this.queues.set(key, [...(this.queues.get(key) ?? []), resolve]));
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.leave(key);
    };
  }

  /** How many hold `key` now, and how many wait for it. */
  load(key: string): { holding: number; waiting: number } {
    return { holding: this.holders.get(key) ?? 0, waiting: this.queues.get(key)?.length ?? 0 };
  }

  private leave(key: string): void {
    const queue = this.queues.get(key);
    const next = queue?.shift();
    if (queue?.length === 0) this.queues.delete(key);
    // The place goes straight to the first in line, so the count of holders does not change.
    if (next) return next();
    const held = (this.holders.get(key) ?? 1) - 1;
    if (held > 0) this.holders.set(key, held);
    else this.holders.delete(key);
  }
}
