import { inTransaction } from '../db/client.js';
import { columnArrays, paramAfter, unnestFrom, type Column } from '../db/columns.js';
import { executionRow, firstAttempt } from '../executions/create-executions.js';
import type { ExecutionEnqueue } from '../queues/queues.js';
import type { Deps } from '../deps/deps.js';
import { isRepeating, nextFireAfter, type Schedule } from './next-run.js';

interface DueJob {
  id: string;
  workspace_id: string;
  name: string;
  kind: string;
  schedule: Schedule | null;
  schedule_anchor: Date;
  next_run_at: Date;
}

/**
 * The fire of a due job and the job's next run. A slot already in the past fires once as
 * the catch-up for everything missed, and the job continues at its first slot after now (docs/JOBS.md, "Schedules").
 */
export function planFire(job: DueJob, now: Date): { scheduledFor: Date; nextRunAt: Date | null } {
  const scheduledFor = job.next_run_at;
  if (!isRepeating(job.kind)) return { scheduledFor, nextRunAt: null };
  const from = scheduledFor > now ? scheduledFor : now;
  return { scheduledFor, nextRunAt: nextFireAfter({ kind: job.kind, schedule: job.schedule, scheduleAnchor: job.schedule_anchor }, from) };
}

interface Fire {
  id: string;
  workspaceId: string;
  jobId: string;
  jobName: string;
  scheduledFor: Date;
  fireKey: string | null;
  nextRunAt: Date | null;
}

const FIRE_COLUMNS: readonly Column<Fire>[] = [
  { name: 'id', type: 'text', value: (f) => f.id },
  { name: 'workspace_id', type: 'text', value: (f) => f.workspaceId },
  { name: 'job_id', type: 'text', value: (f) => f.jobId },
  { name: 'job_name', type: 'text', value: (f) => f.jobName },
  { name: 'scheduled_for', type: 'timestamptz', value: (f) => f.scheduledFor },
  { name: 'fire_key', type: 'text', value: (f) => f.fireKey },
  { name: 'next_run_at', type: 'timestamptz', value: (f) => f.nextRunAt },
];

// One batch of fires in one statement: the executions (a slot already fired is skipped by the
// unique fire key) and every job's next run.
const FIRE_SQL = `
  WITH input AS (
    SELECT * FROM ${unnestFrom(FIRE_COLUMNS, 'f')}
  ), fired AS (
    INSERT INTO executions (id, workspace_id, job_id, job_name, status, source, scheduled_for, fire_key, next_attempt_at, created_at, updated_at)
    SELECT id, workspace_id, job_id, job_name, 'queued', 'schedule', scheduled_for, fire_key, scheduled_for, ${paramAfter(FIRE_COLUMNS)}, ${paramAfter(FIRE_COLUMNS)}
      FROM input
    ON CONFLICT (fire_key) DO NOTHING
    RETURNING id, scheduled_for, workspace_id
  ), moved AS (
    UPDATE jobs AS j SET next_run_at = i.next_run_at
      FROM input AS i
     WHERE j.id = i.job_id
  )
  SELECT id, scheduled_for FROM fired`;

/**
 * Turns every schedule due within the lookahead into a queued execution, a batch per
 * transaction. Rows are locked with SKIP LOCKED so scheduler replicas split the work, and the
 * unique fire key makes a slot that is somehow seen twice produce one execution only.
 * Returns how many executions were created.
 */
export async function fireDueJobs(deps: Deps, options: { lookaheadMs: number; batchSize?: number }): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  let fired = 0;
  for (;;) {
    const now = deps.clock.now();
    const horizon = new Date(now.getTime() + options.lookaheadMs);
    const { enqueue, seen } = await inTransaction(deps.pool, async (client) => {
      const { rows: due } = await client.query<DueJob>({
        name: 'fire-due-jobs-select',
        text: `SELECT id, workspace_id, name, kind, schedule, schedule_anchor, next_run_at
                 FROM jobs
                WHERE next_run_at <= $1
                ORDER BY next_run_at
                LIMIT $2
                  FOR UPDATE SKIP LOCKED`,
        values: [horizon, batchSize],
      });
      if (due.length === 0) return { enqueue: [] as ExecutionEnqueue[], seen: 0 };
      const plans = due.map((job) => {
        try {
          return { job, ...planFire(job, now) };
        } catch (error) {
          // A schedule that no longer evaluates must not stall every other job: it fires this
          // slot and stops, visible as next_run_at null, instead of failing the batch forever.
          deps.logger.error('schedule could not be evaluated; job unscheduled', { jobId: job.id, error: (error as Error).message });
          return { job, scheduledFor: job.next_run_at, nextRunAt: null };
        }
      });
      const fires = plans.map((p): Fire => {
        const row = executionRow({ workspaceId: p.job.workspace_id, jobId: p.job.id, jobName: p.job.name, source: 'schedule', scheduledFor: p.scheduledFor });
        return { id: row.id, workspaceId: row.workspaceId, jobId: row.jobId, jobName: row.jobName, scheduledFor: p.scheduledFor, fireKey: row.fireKey ?? null, nextRunAt: p.nextRunAt };
      });
      const { rows: created } = await client.query<{ id: string; scheduled_for: Date; workspace_id: string }>({
        name: 'fire-due-jobs-insert',
        text: FIRE_SQL,
        values: [...columnArrays(FIRE_COLUMNS, fires), now],
      });
      return { enqueue: created.map((c) => firstAttempt({ id: c.id, scheduledFor: c.scheduled_for, workspaceId: c.workspace_id })), seen: due.length };
    });
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
