import type { Deps } from '../deps/deps.js';
import type { ClaimedExecution, Deferral } from '../executions/claim-attempt.js';
import type { HttpClient } from '../http/http-client.js';
import type { HostGate } from '../hosts/host-gate.js';
import type { ClaimsInHand } from './claims-in-hand.js';

/** How a turn of an execution ended, as the executor needs to know it. */
export type RunOutcome =
  | { done: 'succeeded' | 'failed' | 'retry' | 'parked' | 'waiting'; executionId: string }
  | { retryAt: Date }
  /** Held back by its workspace's fair share before anything was claimed: no attempt, nothing written. */
  | Deferral
  | { skip: string }
  /** The executor is stopping and gave the claim back unrecorded: the attempt must be queued again, to run at once. */
  | { handedBack: string };

export interface RunnerDeps extends Deps {
  http: HttpClient;
  /** The worker whose claims these are (its heartbeat's id); unset in tests that run attempts without one. */
  workerId?: string;
  random?: () => number;
  /**
   * Runs work within one of the process's attempt slots, which go to the workspaces waiting for
   * one in turn: the claim with the request it leads to, and each later request of a workflow's
   * turn. Recordings need no slot: they hold no socket and leave in batches anyway. The workspace
   * is unknown (undefined) for a queue job of an older version, which names only the execution.
   */
  inSlot?: <T>(workspaceId: string | undefined, work: () => Promise<T>) => Promise<T>;
  /**
   * Told at each claim that took room in its workspace's fair share how much room that workspace
   * has left, so that executions of it held back here can start.
   */
  onRoom?: (workspaceId: string, room: number) => void;
  /** The executor's claims in hand, which a stop can hand back; without them a turn always runs to its end. */
  claims?: ClaimsInHand;
  /**
   * The gate of host budgets and Retry-After cool-downs (docs/adr/026-a-gate-in-the-attempt-pipeline.md);
   * without it (tests of other things) every request goes at once and no cool-down is recorded.
   */
  hostGate?: HostGate;
}

/**
 * A runner carries a claimed execution through its turn, for one family of job kinds: request jobs
 * make one attempt, step-driven jobs run steps (docs/adr/013-one-attempt-pipeline.md).
 */
export interface Runner {
  /**
   * The part of the turn that needs the claim's attempt slot (a request's send); what it answers
   * records that part and carries the turn to its end, queueing what follows. The host gate's
   * deferral of that request answers `hostDeferred`, with nothing recorded.
   */
  run(deps: RunnerDeps, exe: ClaimedExecution): Promise<{ record(): Promise<RunOutcome> } | { hostDeferred: Date }>;
}
