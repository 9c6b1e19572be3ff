import type { AttemptStatus, ErrorClass, FireOutcome } from '@cronsvc/contracts';
import type { Logger } from '../logging/logger.js';
import { attemptDuration, attempts, deliveries, executionsFinished, fireLag, fires, triggerInputsDropped, type TRIGGER_DROP_REASONS } from './families.js';

/** What the observers read of a claimed execution. */
export interface ObservedExecution {
  id: string;
  jobId: string;
  scheduledFor: Date;
  /** The request that created the execution; null for schedule fires. */
  requestId: string | null;
}

/** A recorded HTTP attempt: a request job's attempt or an http step's. */
export interface ObservedAttempt {
  number: number;
  startedAt: Date;
  status: AttemptStatus;
  latencyMs: number;
}

export interface ObservedEnd {
  status: 'succeeded' | 'failed';
  errorClass: ErrorClass | null;
}

/**
 * Counts what one recording did: the attempt (with the fire lag when it was the execution's
 * first request), and the execution's end. A failed execution is logged once, here, with what
 * an operator needs to find it: the job, the execution, the error class and the request that
 * created it.
 */
export function observeRecording(logger: Logger, exe: ObservedExecution, attempt: ObservedAttempt | null, end: ObservedEnd | null, firstRequest: boolean): void {
  if (attempt) {
    attempts.inc({ status: attempt.status });
    attemptDuration.observe(attempt.latencyMs / 1000);
    if (firstRequest) fireLag.observe(Math.max(0, attempt.startedAt.getTime() - exe.scheduledFor.getTime()) / 1000);
  }
  if (!end) return;
  executionsFinished.inc({ status: end.status });
  if (end.status === 'failed') {
    logger.warn('execution failed', { jobId: exe.jobId, executionId: exe.id, errorClass: end.errorClass, request_id: exe.requestId });
  }
}

export function observeDelivery(outcome: string): void {
  if (outcome === 'sent' || outcome === 'failed') deliveries.inc({ status: outcome });
}

/** Counts fires of the ledger as they get their outcome (docs/OPERATIONS.md, "Metrics"). */
export function observeFires(outcome: Exclude<FireOutcome, 'pending'>, count = 1): void {
  fires.inc({ outcome }, count);
}

/** A trigger call answered as received whose input was not stored. */
export function observeDroppedTriggerInput(reason: (typeof TRIGGER_DROP_REASONS)[number]): void {
  triggerInputsDropped.inc({ reason });
}
