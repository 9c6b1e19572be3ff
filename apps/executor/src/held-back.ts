import { executionJobId } from '@cronsvc/core';

export interface Attempt {
  executionId: string;
  attempt: number;
  /** Unknown for a queue job of an older version: such an attempt is never held back here. */
  workspaceId?: string;
  /** The enqueue's span, as the queue payload carried it: the claim's parent (docs/adr/030-spans-exported-over-otlp.md). */
  traceparent?: string;
}

export type HeldBackAttempt = Attempt & { workspaceId: string };

/**
 * The executor's side of fair share (docs/adr/022-fair-share-between-workspaces.md). The claim
 * holds each workspace to WORKSPACE_MAX_IN_FLIGHT across executors; this keeps, per workspace and
 * in order of arrival, the attempts that cannot go yet, so that they neither claim in vain nor
 * occupy a queue worker, and starts them when their workspace may have room:
 *
 * - an attempt of a workspace that already waits here, or that has `cap` attempts running here,
 *   is held back at once (admit);
 * - one whose claim was refused for room goes back to the front, and its workspace then waits for
 *   room: one of its turns here ending, a claim of it reporting room left, or the probe;
 * - otherwise a turn ending starts the next ones, up to `cap` running here.
 *
 * Held back, an execution is `queued` in Postgres and its queue job is done, as with held
 * attempts: if this process dies, the dead-executor takeover and the reconciler queue it again.
 */
export class HeldBack {
  private readonly running = new Map<string, number>();
  private readonly lanes = new Map<string, HeldBackAttempt[]>();
  private readonly keys = new Set<string>();
  /** Workspaces whose last try here found no room: they move only when room may have come. */
  private readonly waitingForRoom = new Set<string>();
  private closed = false;

  constructor(
    private readonly options: {
      /** WORKSPACE_MAX_IN_FLIGHT; 0 holds nothing back. */
      cap: number;
      /** At most this many held back; past it an attempt goes on, and its claim decides. */
      limit: number;
      /** Starts an attempt taken out of its lane; it counts as running from then on. */
      start: (item: HeldBackAttempt) => void;
    },
  ) {}

  get size(): number {
    return this.keys.size;
  }

  /**
   * Whether the attempt may go on to its claim now (it then counts as running here until
   * `ended` or `deferred`); false when it was held back, and its queue job can end.
   */
  admit(item: Attempt): boolean {
    const { workspaceId } = item;
    if (this.options.cap === 0 || workspaceId === undefined) return true;
    const busy = this.lanes.has(workspaceId) || this.runningOf(workspaceId) >= this.options.cap;
    if (busy && this.hold({ ...item, workspaceId }, 'back')) return false;
    this.running.set(workspaceId, this.runningOf(workspaceId) + 1);
    return true;
  }

  /** An admitted attempt's turn ended without a deferral: the next ones of its workspace may start. */
  ended(workspaceId: string | undefined): void {
    if (workspaceId === undefined || !this.finish(workspaceId)) return;
    const wasWaiting = this.waitingForRoom.delete(workspaceId);
    // The turn gave back one request's room; more is reported by the claims it leads to.
    this.startNext(workspaceId, wasWaiting ? 1 : this.options.cap);
  }

  /**
   * An admitted attempt's claim was refused for room: it goes back to the front of its lane,
   * which waits for room. False when it cannot be held (the caller queues it again).
   */
  deferred(item: Attempt): boolean {
    const { workspaceId } = item;
    if (workspaceId === undefined || !this.finish(workspaceId)) return false;
    if (!this.hold({ ...item, workspaceId }, 'front')) return false;
    this.waitingForRoom.add(workspaceId);
    return true;
  }

  /** A claim of the workspace (here, held back or not) left this much room: that many may start. */
  room(workspaceId: string, room: number): void {
    if (room <= 0 || !this.lanes.has(workspaceId)) return;
    this.waitingForRoom.delete(workspaceId);
    this.startNext(workspaceId, room);
  }

  /**
   * Each workspace waiting for room tries its first attempt: room may have come on another
   * executor, whose turns ending this one does not see.
   */
  probe(): void {
    for (const workspaceId of [...this.waitingForRoom]) {
      this.waitingForRoom.delete(workspaceId);
      this.startNext(workspaceId, 1);
    }
  }

  /** Empties the lanes for good (a stop): the caller hands what they held back to the queue. */
  release(): HeldBackAttempt[] {
    this.closed = true;
    const items = [...this.lanes.values()].flat();
    this.lanes.clear();
    this.keys.clear();
    this.waitingForRoom.clear();
    return items;
  }

  private runningOf(workspaceId: string): number {
    return this.running.get(workspaceId) ?? 0;
  }

  /** One running attempt of the workspace less; false if none was counted (admitted while off). */
  private finish(workspaceId: string): boolean {
    const n = this.runningOf(workspaceId);
    if (n === 0) return false;
    if (n === 1) this.running.delete(workspaceId);
    else this.running.set(workspaceId, n - 1);
    return true;
  }

  private hold(item: HeldBackAttempt, end: 'front' | 'back'): boolean {
    const key = executionJobId(item.executionId, item.attempt);
    if (this.keys.has(key)) return true;
    if (this.closed || this.keys.size >= this.options.limit) return false;
    this.keys.add(key);
    const lane = this.lanes.get(item.workspaceId);
    if (!lane) this.lanes.set(item.workspaceId, [item]);
    else if (end === 'front') lane.unshift(item);
    else lane.push(item);
    return true;
  }

  private startNext(workspaceId: string, count: number): void {
    const lane = this.lanes.get(workspaceId);
    for (let started = 0; lane && started < count && lane.length > 0 && this.runningOf(workspaceId) < this.options.cap; started++) {
      const item = lane.shift()!;
      this.keys.delete(executionJobId(item.executionId, item.attempt));
      this.running.set(workspaceId, this.runningOf(workspaceId) + 1);
      this.options.start(item);
    }
    if (lane?.length === 0) {
      this.lanes.delete(workspaceId);
      this.waitingForRoom.delete(workspaceId);
    }
  }
}
