/** How many pools and sockets the outbound client may hold (docs/SECURITY.md, "The outbound client"). */
export interface PoolLimits {
  /** Workspaces holding a pool at once; past it, the pool idle the longest is closed. */
  maxPools: number;
  /** Open sockets over all pools; past it, idle pools are closed, the longest idle first. */
  maxOpenSockets: number;
  /** A pool with nothing in flight for this long is closed. */
  idleMs: number;
}

/** Told by a pool's transport each time one of its sockets opens or closes. */
export interface SocketCounter {
  opened(): void;
  closed(): void;
}

export interface PoolFactory<P> {
  create(sockets: SocketCounter): P;
  /** Closes a pool and its idle sockets, once nothing is in flight on it. */
  close(pool: P): Promise<void>;
}

export interface PoolLease<P> {
  readonly pool: P;
}

interface Entry<P> extends PoolLease<P> {
  readonly workspaceId: string;
  inFlight: number;
  sockets: number;
  idleSince: number;
  closed: boolean;
}

/**
 * One connection pool per workspace, so a socket that carried one workspace's request never
 * carries another's (ADR 007). Pools are made on first use and closed when idle for `idleMs`, when there
 * are more than `maxPools`, or while the open sockets of all pools exceed `maxOpenSockets`; a pool
 * with a request in flight is never closed, so those limits can only be exceeded by requests in
 * flight, which the caller bounds (the executor's attempt slots).
 *
 * `acquire` and `release` run once per request and cost O(1): a map lookup, and a move to or from
 * the idle list, which is kept in the order pools went idle (a Map keeps insertion order), so the
 * pool to close is always at its head.
 */
export class WorkspacePools<P> {
  private readonly entries = new Map<string, Entry<P>>();
  /** Pools with nothing in flight, longest idle first. */
  private readonly idle = new Map<string, Entry<P>>();
  private openSockets = 0;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly limits: PoolLimits,
    private readonly factory: PoolFactory<P>,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.sweeper = setInterval(() => this.closeExpired(), Math.max(1, Math.ceil(limits.idleMs / 2)));
    this.sweeper.unref();
  }

  /** The workspace's pool, counted as in use until `release`. */
  acquire(workspaceId: string): PoolLease<P> {
    let entry = this.entries.get(workspaceId);
    if (entry === undefined) {
      entry = this.create(workspaceId);
      this.trim();
    } else if (entry.inFlight === 0) {
      this.idle.delete(workspaceId);
    }
    entry.inFlight += 1;
    return entry;
  }

  release(lease: PoolLease<P>): void {
    const entry = lease as Entry<P>;
    entry.inFlight -= 1;
    if (entry.inFlight > 0) return;
    entry.idleSince = this.now();
    this.idle.set(entry.workspaceId, entry);
    if (this.openSockets > this.limits.maxOpenSockets) this.trim();
  }

  /** For tests and the docs: what is held right now. */
  stats(): { pools: number; idlePools: number; openSockets: number } {
    return { pools: this.entries.size, idlePools: this.idle.size, openSockets: this.openSockets };
  }

  /** Closes every pool, each once the requests in flight on it have ended. */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.entries.values()].map((entry) => this.close(entry)));
  }

  private create(workspaceId: string): Entry<P> {
    const entry = { workspaceId, inFlight: 0, sockets: 0, idleSince: 0, closed: false } as Entry<P>;
    const counter: SocketCounter = {
      opened: () => {
        entry.sockets += 1;
        if (!entry.closed) this.openSockets += 1;
      },
      closed: () => {
        entry.sockets -= 1;
        if (!entry.closed) this.openSockets -= 1;
      },
    };
    (entry as { pool: P }).pool = this.factory.create(counter);
    this.entries.set(workspaceId, entry);
    return entry;
  }

  private close(entry: Entry<P>): Promise<void> {
    entry.closed = true;
    // Its sockets close a little later; they stop counting now, so one eviction is enough.
    this.openSockets -= entry.sockets;
    this.entries.delete(entry.workspaceId);
    this.idle.delete(entry.workspaceId);
    return this.factory.close(entry.pool);
  }

  /** Closes idle pools, longest idle first, while a limit is exceeded. */
  private trim(): void {
    while (this.entries.size > this.limits.maxPools || this.openSockets > this.limits.maxOpenSockets) {
      const oldest = this.idle.values().next();
      if (oldest.done) return;
      void this.close(oldest.value);
    }
  }

  private closeExpired(): void {
    const cutoff = this.now() - this.limits.idleMs;
    for (const entry of this.idle.values()) {
      if (entry.idleSince > cutoff) return;
      void this.close(entry);
    }
  }
}
