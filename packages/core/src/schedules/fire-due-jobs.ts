import { inTransaction } from '../db/client.js';
import { executionRow, firstAttempt } from '../executions/create-executions.js';
import type { ExecutionEnqueue } from '../queues/queues.js';
import type { Deps } from '../runtime/deps.js';
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
 * the catch-up for everything missed, and the job continues at its first slot after now (D4).
 */
export function planFire(job: DueJob, now: Date): { scheduledFor: Date; nextRunAt: Date | null } {
  const scheduledFor = job.next_run_at;
  if (!isRepeating(job.kind)) return { scheduledFor, nextRunAt: null };
  const from = scheduledFor > now ? scheduledFor : now;
  return { scheduledFor, nextRunAt: nextFireAfter({ kind: job.kind, schedule: job.schedule, scheduleAnchor: job.schedule_anchor }, from) };
}

// One batch of fires in one statement: the executions (a slot already fired is skipped by the
// unique fire key) and every job's next run.
const FIRE_SQL = `
  WITH fired AS (
    INSERT INTO executions (id, workspace_id, job_id, job_name, status, source, scheduled_for, fire_key, next_attempt_at, created_at, updated_at)
    SELECT id, workspace_id, job_id, job_name, 'queued', 'schedule', scheduled_for, fire_key, scheduled_for, $8, $8
      FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[]) AS f(id, workspace_id, job_id, job_name, scheduled_for, fire_key)
    ON CONFLICT (fire_key) DO NOTHING
    RETURNING id, scheduled_for
  ), moved AS (
    UPDATE jobs AS j SET next_run_at = v.next_run_at
      FROM unnest($3::text[], $7::timestamptz[]) AS v(id, next_run_at)
     WHERE j.id = v.id
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
      const rows = plans.map((p) =>
        executionRow({ workspaceId: p.job.workspace_id, jobId: p.job.id, jobName: p.job.name, source: 'schedule', scheduledFor: p.scheduledFor }),
      );
      const { rows: created } = await client.query<{ id: string; scheduled_for: Date }>({
        name: 'fire-due-jobs-insert',
        text: FIRE_SQL,
        values: [
          rows.map((r) => r.id),
          rows.map((r) => r.workspaceId),
          rows.map((r) => r.jobId),
          rows.map((r) => r.jobName),
          plans.map((p) => p.scheduledFor.toISOString()),
          rows.map((r) => r.fireKey),
          plans.map((p) => p.nextRunAt?.toISOString() ?? null),
          now,
        ],
      });
      return { enqueue: created.map((c) => firstAttempt({ id: c.id, scheduledFor: c.scheduled_for })), seen: due.length };
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
