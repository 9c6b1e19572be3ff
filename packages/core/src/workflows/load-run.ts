import type { ClaimedExecution } from '../executions/claim-attempt.js';
import { keyedLookup } from '../db/keyed-lookup.js';
import type { Deps } from '../deps/deps.js';
import type { TriggerValues } from '../templates/step-template.js';
import type { Step } from '@cronsvc/contracts';

/** The record of the step a run is at, as the runner reads and writes it. */
export interface StepRow {
  id: string;
  stepIndex: number;
  stepId: string;
  type: string;
  status: string;
  attemptCount: number;
  input: unknown;
  output: unknown;
  extracted: Record<string, unknown> | null;
  errorClass: string | null;
  errorMessage: string | null;
  tokenHash: string | null;
  waitingPayload: unknown;
  expiresAt: Date | null;
  decision: string | null;
  decidedAt: Date | null;
  startedAt: Date;
  finishedAt: Date | null;
}

/** A step-driven execution during a turn (docs/adr/010-step-driven-executions.md). */
export interface Run {
  exe: ClaimedExecution;
  /** attempt_count the next recording sets: one more than the last recorded turn. */
  turn: number;
  steps: Step[];
  /** The job's steps to copy into the execution with the first recording; null once stored. */
  stepsToStore: Step[] | null;
  index: number;
  context: Record<string, unknown>;
  trigger: TriggerValues | null;
  deadline: Date;
  /**
   * When the turn was due by the clock of whoever queued it (a wait timer, a resume). The deadline
   * is judged against the later of this and the worker's clock, so a timer that fired at the
   * deadline is a timeout even on a worker whose clock is a little behind.
   */
  dueAt: Date;
  current: StepRow | null;
}

interface RunRecord {
  id: string;
  status: string;
  attempt_count: number;
  steps: Step[] | null;
  step_index: number;
  context: Record<string, unknown> | null;
  trigger_input: TriggerValues | null;
  deadline_at: Date | null;
  started_at: Date;
  next_attempt_at: Date;
  job_steps: Step[] | null;
  max_workflow_duration_seconds: number | null;
  job_context: Record<string, string> | null;
  step: (Omit<StepRow, 'expiresAt' | 'decidedAt' | 'startedAt' | 'finishedAt'> & Record<'expiresAt' | 'decidedAt' | 'startedAt' | 'finishedAt', string | null>) | null;
}

const DEFAULT_MAX_DURATION_SECONDS = 1800;

// The run and the record of its current step, in one round trip. The step comes back as JSON
// (its keys renamed to the runner's names), so its timestamps are parsed below.
const LOAD_SQL = `
  SELECT e.id, e.status, e.attempt_count, e.steps, e.step_index, e.context, e.trigger_input, e.deadline_at, e.started_at, e.next_attempt_at,
         j.steps AS job_steps, j.max_workflow_duration_seconds, c.entries AS job_context,
         CASE WHEN s.id IS NULL THEN NULL ELSE jsonb_build_object(
           'id', s.id, 'stepIndex', s.step_index, 'stepId', s.step_id, 'type', s.type, 'status', s.status,
           'attemptCount', s.attempt_count, 'input', s.input, 'output', s.output, 'extracted', s.extracted,
           'errorClass', s.error_class, 'errorMessage', s.error_message, 'tokenHash', s.token_hash,
           'waitingPayload', s.waiting_payload, 'expiresAt', s.expires_at, 'decision', s.decision,
           'decidedAt', s.decided_at, 'startedAt', s.started_at, 'finishedAt', s.finished_at) END AS step
    FROM executions AS e
    JOIN jobs AS j ON j.id = e.job_id
    LEFT JOIN job_contexts AS c ON c.job_id = e.job_id
    LEFT JOIN step_executions AS s ON s.execution_id = e.id AND s.step_index = e.step_index
   WHERE e.id = ANY($1::text[])`;

const date = (value: string | null) => (value === null ? null : new Date(value));

// The turns that start together (resumes and decisions arriving at once) load their runs in one
// statement, as their claims are made.
const load = keyedLookup<RunRecord>('load-step-runs', LOAD_SQL, (run) => run.id);

/**
 * Loads a claimed step-driven execution for its turn; null when it is no longer this claim's
 * (another worker recorded a turn since). A run's first turn takes the job's steps and context
 * store as they are now and sets its deadline from its start; the first recording stores them.
 */
export async function loadRun(deps: Pick<Deps, 'pool'>, exe: ClaimedExecution): Promise<Run | null> {
  const r = await load(deps.pool, exe.id);
  if (!r || r.status !== 'running' || r.attempt_count !== exe.attemptCount) return null;
  const steps = r.steps ?? r.job_steps ?? [];
  const seconds = r.max_workflow_duration_seconds ?? DEFAULT_MAX_DURATION_SECONDS;
  const step = r.step;
  return {
    exe,
    turn: r.attempt_count + 1,
    steps,
    stepsToStore: r.steps ? null : steps,
    index: r.step_index,
    context: r.context ?? { ...(r.job_context ?? {}) },
    trigger: r.trigger_input,
    deadline: r.deadline_at ?? new Date(r.started_at.getTime() + seconds * 1000),
    dueAt: r.next_attempt_at,
    current: step && {
      ...step,
      expiresAt: date(step.expiresAt),
      decidedAt: date(step.decidedAt),
      startedAt: date(step.startedAt) as Date,
      finishedAt: date(step.finishedAt),
    },
  };
}
