import { inTransaction } from '../db/client.js';
import { columnArrays, paramAfter, unnestFrom, type Column } from '../db/columns.js';
import { executionRow, firstAttempt } from '../executions/create-executions.js';
import { recordGaps, type NewGap } from '../fires/record-gaps.js';
import { observeFires } from '../metrics/observe.js';
import type { ExecutionEnqueue } from '../queues/queues.js';
import type { Deps } from '../deps/deps.js';
import { planFire, type DueJob, type FirePlan } from './plan-fire.js';

interface Fire {
  /** Null when the plan records the window without running it (catch_up_policy none). */
  id: string | null;
  workspaceId: string;
  jobId: string;
  jobName: string;
  scheduledFor: Date | null;
  dueAt: Date | null;
  jitterMs: number | null;
  caughtUp: boolean | null;
  fireKey: string | null;
  nextRunAt: Date | null;
  /** A scheduled job whose one slot is recorded missed without a run: it is done. */
  completes: boolean;
}

const FIRE_COLUMNS: readonly Column<Fire>[] = [
  { name: 'id', type: 'text', value: (f) => f.id },
  { name: 'workspace_id', type: 'text', value: (f) => f.workspaceId },
  { name: 'job_id', type: 'text', value: (f) => f.jobId },
  { name: 'job_name', type: 'text', value: (f) => f.jobName },
  { name: 'scheduled_for', type: 'timestamptz', value: (f) => f.scheduledFor },
  { name: 'due_at', type: 'timestamptz', value: (f) => f.dueAt },
  { name: 'jitter_ms', type: 'int', value: (f) => f.jitterMs },
  { name: 'caught_up', type: 'boolean', value: (f) => f.caughtUp },
  { name: 'fire_key', type: 'text', value: (f) => f.fireKey },
  { name: 'next_run_at', type: 'timestamptz', value: (f) => f.nextRunAt },
  { name: 'completes', type: 'boolean', value: (f) => f.completes },
];

// One batch of fires in one statement: the executions (a slot already fired is skipped by the
// unique fire key) and every job's next run. An execution's first attempt is due at its slot plus
// the slot's jitter.
const FIRE_SQL = `
  WITH input AS (
    SELECT * FROM ${unnestFrom(FIRE_COLUMNS, 'f')}
  ), fired AS (
    INSERT INTO executions (id, workspace_id, job_id, job_name, status, source, scheduled_for, fire_key, next_attempt_at, jitter_ms, caught_up, created_at, updated_at)
    SELECT id, workspace_id, job_id, job_name, 'queued', 'schedule', scheduled_for, fire_key, due_at, jitter_ms, caught_up, ${paramAfter(FIRE_COLUMNS)}, ${paramAfter(FIRE_COLUMNS)}
      FROM input
     WHERE id IS NOT NULL
    ON CONFLICT (fire_key) DO NOTHING
    RETURNING id, job_id, next_attempt_at, workspace_id
  ), moved AS (
    UPDATE jobs AS j SET next_run_at = i.next_run_at, state = CASE WHEN i.completes THEN 'completed' ELSE j.state END
      FROM input AS i
     WHERE j.id = i.job_id
  )
  SELECT id, job_id, next_attempt_at FROM fired`;

const SAFE_PLAN = (job: DueJob): FirePlan => ({
  execution: { scheduledFor: job.next_run_at, jitterMs: 0, caughtUp: false },
  missed: [],
  unlisted: false,
  nextRunAt: null,
});

function fireOf(job: DueJob, plan: FirePlan): Fire {
  const completes = plan.execution === null && plan.nextRunAt === null;
  const base = { workspaceId: job.workspace_id, jobId: job.id, jobName: job.name, nextRunAt: plan.nextRunAt, completes };
  if (!plan.execution) return { ...base, id: null, scheduledFor: null, dueAt: null, jitterMs: null, caughtUp: null, fireKey: null };
  const { scheduledFor, jitterMs, caughtUp } = plan.execution;
  const row = executionRow({ workspaceId: job.workspace_id, jobId: job.id, jobName: job.name, source: 'schedule', scheduledFor });
  return {
    ...base,
    id: row.id,
    scheduledFor,
    dueAt: new Date(scheduledFor.getTime() + jitterMs),
    // Null for an ordinary fire, so that it costs nothing in the row (docs/adr/021-fire-ledger.md).
    jitterMs: jitterMs === 0 ? null : jitterMs,
    caughtUp: caughtUp ? true : null,
    fireKey: row.fireKey ?? null,
  };
}

/** The missed slots of the batch's plans, each linked to its window's catch-up if that was created. */
function gapsOf(plans: { job: DueJob; plan: FirePlan }[], fires: Fire[], created: Set<string>): NewGap[] {
  return plans.flatMap(({ job, plan }, i) => {
    const catchUp = fires[i].id !== null && created.has(fires[i].id as string) ? fires[i].id : null;
    return plan.missed.map((slot): NewGap => ({
      jobId: job.id, workspaceId: job.workspace_id, scheduledFor: slot.scheduledFor, dueAt: slot.dueAt, outcome: 'missed', reason: null, executionId: catchUp,
    }));
  });
}

/**
 * Turns every schedule due within the lookahead into a queued execution, a batch per
 * transaction. Rows are locked with SKIP LOCKED so scheduler replicas split the work, and the
 * unique fire key makes a slot that is somehow seen twice produce one execution only. Slots that
 * passed while nothing fired them are recorded in the fire ledger in the same transaction.
 * Returns how many executions were created.
 */
export async function fireDueJobs(deps: Deps, options: { lookaheadMs: number; batchSize?: number }): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  const planOptions = { lateAfterMs: deps.config.fireLateAfterMs, random: Math.random };
  let fired = 0;
  for (;;) {
    const now = deps.clock.now();
    const horizon = new Date(now.getTime() + options.lookaheadMs);
    const { enqueue, seen, missed } = await inTransaction(deps.pool, async (client) => {
      const { rows: due } = await client.query<DueJob>({
        name: 'fire-due-jobs-select',
        text: `SELECT id, workspace_id, name, kind, schedule, schedule_anchor, next_run_at, catch_up_policy, jitter_seconds
                 FROM jobs
                WHERE next_run_at <= $1
                ORDER BY next_run_at
                LIMIT $2
                  FOR UPDATE SKIP LOCKED`,
        values: [horizon, batchSize],
      });
      if (due.length === 0) return { enqueue: [] as ExecutionEnqueue[], seen: 0, missed: 0 };
      const plans = due.map((job) => {
        try {
          return { job, plan: planFire(job, now, planOptions) };
        } catch (error) {
          // A schedule that no longer evaluates must not stall every other job: it fires this
          // slot and stops, visible as next_run_at null, instead of failing the batch forever.
          deps.logger.error('schedule could not be evaluated; job unscheduled', { jobId: job.id, error: (error as Error).message });
          return { job, plan: SAFE_PLAN(job) };
        }
      });
      const fires = plans.map((p) => fireOf(p.job, p.plan));
      const { rows: created } = await client.query<{ id: string; job_id: string; next_attempt_at: Date; workspace_id: string }>({
        name: 'fire-due-jobs-insert',
        text: FIRE_SQL,
        values: [...columnArrays(FIRE_COLUMNS, fires), now],
      });
      const missed = await recordGaps(client, gapsOf(plans, fires, new Set(created.map((c) => c.id))), now);
      for (const { job, plan } of plans) {
        if (plan.unlisted) deps.logger.warn('a window of missed slots was longer than the ledger lists; the rest is not recorded', { jobId: job.id, listedFrom: job.next_run_at });
      }
      return { enqueue: created.map((c) => firstAttempt({ id: c.id, scheduledFor: c.next_attempt_at, workspaceId: c.workspace_id })), seen: due.length, missed };
    });
    if (missed > 0) observeFires('missed', missed);
    if (enqueue.length > 0) {
      try {
        await deps.queues.enqueueExecutions(enqueue);
      } catch (error) {
        deps.logger.warn('queueing fires failed; the reconciler will queue them', { count: enqueue.length, error: (error as Error).message });
      }
    }
    fired += enqueue.length;
    if (seen < batchSize) return fired;
  }
}
