import type { PageQuery } from './lists.js';

/**
 * What became of an expected fire (docs/JOBS.md, "The fire ledger"): its execution has not sent
 * its first request yet, it fired on time or late, it was the catch-up of a window, a slot of
 * that window without an execution of its own, or not run on purpose.
 */
export const FIRE_OUTCOMES = ['pending', 'fired', 'late', 'caught_up', 'missed', 'skipped'] as const;
export type FireOutcome = (typeof FIRE_OUTCOMES)[number];

/** Why a skipped fire was skipped. */
export const FIRE_SKIP_REASONS = ['overlap'] as const;
export type FireSkipReason = (typeof FIRE_SKIP_REASONS)[number];

/** One expected fire, as GET /v1/jobs/:id/fires lists it. */
export interface Fire {
  /** The slot on the schedule's grid. */
  scheduled_for: string;
  /** The slot plus the job's jitter offset for it. */
  due_at: string;
  outcome: FireOutcome;
  /** The slot's execution; for a missed slot the catch-up that covered it, or null; null when skipped. */
  execution_id: string | null;
  /** When the execution sent its first request; null until then and for missed and skipped fires. */
  fired_at: string | null;
  /** fired_at - due_at; null when fired_at is. */
  lag_ms: number | null;
  /** Why a skipped fire was skipped; null otherwise. */
  reason: FireSkipReason | null;
}

/** One fire as GET /v1/fires lists it: with its job. */
export interface WorkspaceFire extends Fire {
  job_id: string;
  job_name: string;
}

/** Filters of GET /v1/jobs/:id/fires; `from` and `to` bound scheduled_for, both inclusive. */
export interface FireListQuery extends PageQuery {
  outcome?: FireOutcome;
  from?: string;
  to?: string;
}

/** Filters of GET /v1/fires. */
export interface WorkspaceFireListQuery extends FireListQuery {
  job_id?: string;
}

/** The payload of an on_missed delivery: a window of missed slots, or one skipped slot. */
export interface FireMissedPayload {
  event: 'fire.missed';
  job: { id: string; name: string };
  fires: { scheduled_for: string; outcome: 'missed' | 'skipped'; reason: FireSkipReason | null }[];
  timestamp: string;
}
