import type { SqlBuilder } from '../db/client.js';
import { durationClass, rollupWrite } from '../executions/job-stats.js';
import { executionEventWanted } from '../notifications/insert-event.js';
import { streakCounted, streakWrites } from '../notifications/streak-writes.js';

/** A step-driven execution that ended, for the outbox. */
export interface ExecutionEnded {
  workspaceId: string;
  executionId: string;
  jobId: string;
  outcome: 'succeeded' | 'failed';
  at: Date;
  durationMs: number;
}

/**
 * What a step-driven execution owes when it ends: its outbox event (execution.succeeded or
 * execution.failed, when its job has a callback or rules), from which the notifier makes its
 * callback and notifications, exactly as for a request job (docs/adr/009-event-outbox-and-channel-adapters.md), and its
 * count in the job's statistics rollup (docs/EXECUTIONS.md, "Statistics"). The one place
 * step-driven runs write "execution ended". It returns CTEs for the statement that records the
 * end, inserting only `FROM guard` (the CTE of the execution's guarded update), so the end and the
 * event commit together or not at all.
 */
export function executionEndedWrites(b: SqlBuilder, ended: ExecutionEnded, guard: string): string[] {
  const values = [ended.workspaceId, `execution.${ended.outcome}`, ended.executionId].map((v) => `${b.param(v)}::text`);
  const status = `${b.param(ended.outcome)}::text`;
  const job = `${b.param(ended.jobId)}::text`;
  return [
    `finished AS (SELECT ${values[2]} AS id, j.id AS job_id, ${status} AS status, 1 AS ord FROM ${guard} JOIN jobs AS j ON j.id = ${job} WHERE ${streakCounted('j')})`,
    ...streakWrites('finished'),
    `ended AS (INSERT INTO events (workspace_id, type, execution_id, streak_failures, streak_epoch, created_at)
      SELECT ${values.join(', ')}, (SELECT failures FROM streak_events), (SELECT epoch FROM streak_events), ${b.param(ended.at)}::timestamptz
        FROM ${guard} JOIN jobs AS j ON j.id = ${job}
       WHERE ${executionEventWanted('j', status)})`,
    rollupWrite('rolled', `SELECT ${b.param(ended.jobId)}::text AS job_id, ${b.param(ended.at)}::timestamptz AS at,
      ${b.param(ended.outcome === 'failed')}::boolean AS failed, ${b.param(durationClass(ended.durationMs))}::int AS duration_class FROM ${guard}`),
  ];
}
