/**
 * A job's streak of consecutive failed executions (docs/NOTIFICATIONS.md, "Quiet but safe
 * alerts"), written by the very statement that records executions' ends, so the count follows
 * the order in which executions finished, whatever executor finished them.
 *
 * `streakWrites(ended)` returns the CTEs that move the jobs' `job_streaks` rows; `ended` names a
 * CTE of the executions that ended in this statement, with columns `id`, `job_id`, `status`
 * ('succeeded' | 'failed') and `ord` (their order within the statement). The upsert takes each
 * job's row lock (in job id order, so two statements cannot wait on each other): a concurrent
 * statement ending another execution of the same job waits for this one to commit and counts on
 * from its result. The CTE `streak_events` then answers, per ended execution, `failures` (for a
 * failure, the streak's failures up to and including it; for a success, the failures of the streak
 * it ended) and `epoch` (which streak of the job: the count of streaks ended before it).
 *
 * Within one statement the executions of a job are taken in `ord` order: `g` is the number of
 * successes before a row (its segment), `k` its failures so far in that segment.
 */
export function streakWrites(ended: string): string[] {
  return [
    `streak_rows AS (
      SELECT id, job_id, status, g, total_s,
             CASE WHEN status = 'failed' THEN count(*) FILTER (WHERE status = 'failed') OVER (PARTITION BY job_id, g ORDER BY ord ROWS UNBOUNDED PRECEDING)
                  ELSE count(*) FILTER (WHERE status = 'failed') OVER (PARTITION BY job_id, g) END AS k
        FROM (SELECT id, job_id, status, ord,
                     coalesce(count(*) FILTER (WHERE status = 'succeeded') OVER (PARTITION BY job_id ORDER BY ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS g,
                     count(*) FILTER (WHERE status = 'succeeded') OVER (PARTITION BY job_id) AS total_s
                FROM ${ended}) AS s)`,
    `streak_jobs AS (
      SELECT job_id, count(*) FILTER (WHERE status = 'succeeded') AS successes, count(*) FILTER (WHERE status = 'failed') AS failed,
             count(*) FILTER (WHERE status = 'failed' AND g = total_s) AS trailing_failed
        FROM streak_rows GROUP BY job_id)`,
    // Jobs with a failure here: counted on (or a new streak begun after a success here).
    `streak_up AS (
      INSERT INTO job_streaks AS s (job_id, failures, epoch, updated_at)
      SELECT job_id, trailing_failed, successes, now() FROM streak_jobs WHERE failed > 0 ORDER BY job_id
      ON CONFLICT (job_id) DO UPDATE SET
        prev_failures = s.failures, prev_epoch = s.epoch,
        failures = CASE WHEN excluded.epoch > 0 THEN excluded.failures ELSE s.failures + excluded.failures END,
        epoch = s.epoch + excluded.epoch, updated_at = excluded.updated_at
      RETURNING job_id, prev_failures, prev_epoch)`,
    // Jobs with only successes here: a streak they end is closed; without one nothing is written.
    `streak_end AS (
      UPDATE job_streaks AS s SET prev_failures = s.failures, prev_epoch = s.epoch, failures = 0, epoch = s.epoch + j.successes, updated_at = now()
        FROM streak_jobs AS j
       WHERE j.failed = 0 AND s.job_id = j.job_id AND s.failures > 0
      RETURNING s.job_id, s.prev_failures, s.prev_epoch)`,
    `streak_events AS (
      SELECT r.id, (CASE WHEN r.g = 0 THEN coalesce(p.prev_failures, 0) ELSE 0 END + r.k)::int AS failures, (coalesce(p.prev_epoch, 0) + r.g)::bigint AS epoch
        FROM streak_rows AS r LEFT JOIN (SELECT * FROM streak_up UNION ALL SELECT * FROM streak_end) AS p ON p.job_id = r.job_id)`,
  ];
}

/**
 * Whether a job's ended executions are counted, as a SQL condition over its jobs row: only jobs
 * with a rule that reads streaks (on_failure or on_recovery), so the others write nothing more.
 */
export function streakCounted(job: string): string {
  return `EXISTS (SELECT 1 FROM notification_rules AS sr WHERE sr.job_id = ${job}.id AND sr.event IN ('on_failure', 'on_recovery'))`;
}
