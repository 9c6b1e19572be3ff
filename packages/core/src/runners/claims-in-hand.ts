import type { SqlPool } from '../db/client.js';
import { releaseClaims, type ClaimedExecution } from '../executions/claim-attempt.js';

/**
 * The claims one executor holds while their turns run (requests out, not yet answered). A stop
 * past its grace period, or a deliberate second Ctrl-C, hands them back (docs/RELIABILITY.md,
 * "Stopping the service"): each lease is released in Postgres so that another executor claims
 * the execution at once, under the same execution id, instead of after the lease runs out.
 * Turns being recorded are not among them: their answer is in, and recording it is quick.
 */
export class ClaimsInHand {
  private readonly held = new Map<string, number>();
  private closed = false;
  private signal!: () => void;
  /** Settles when the executor hands its work back: every turn still running stops waiting then. */
  readonly handedBack = new Promise<void>((resolve) => (this.signal = resolve));

  constructor(
    private readonly pool: SqlPool,
    private readonly onError: (error: Error) => void,
  ) {}

  /** Whether work is being handed back: no new claim should be made. */
  get handingBack(): boolean {
    return this.closed;
  }

  /** Turns with their request out right now. */
  get size(): number {
    return this.held.size;
  }

  /** Takes a fresh claim in hand; false when work is being handed back, and then the claim is released at once. */
  hold(exe: ClaimedExecution): boolean {
    if (this.closed) {
      releaseClaims(this.pool, [{ executionId: exe.id, claimToken: exe.claimToken }]).catch(this.onError);
      return false;
    }
    this.held.set(exe.id, exe.claimToken);
    return true;
  }

  /** The turn's request was answered (or it failed): it is no longer handed back. */
  drop(exe: ClaimedExecution): void {
    if (this.held.get(exe.id) === exe.claimToken) this.held.delete(exe.id);
  }

  /** Releases every claim in hand, then lets the turns still running go; answers how many were released. */
  async handBack(): Promise<number> {
    this.closed = true;
    const items = [...this.held].map(([executionId, claimToken]) => ({ executionId, claimToken }));
    this.held.clear();
    try {
      return (await releaseClaims(this.pool, items)).length;
    } finally {
      this.signal();
    }
  }
}
