import type { FireSkipReason } from '@cronsvc/contracts';
import { columnArrays, paramAfter, unnestFrom, type Column } from '../db/columns.js';

/** A slot of the fire ledger without an execution of its own (docs/adr/021-fire-ledger.md). */
export interface NewGap {
  jobId: string;
  workspaceId: string;
  scheduledFor: Date;
  dueAt: Date;
  outcome: 'missed' | 'skipped';
  reason: FireSkipReason | null;
  /** The catch-up execution that covered a missed slot; null when none did, and for a skip. */
  executionId: string | null;
}

const GAP_COLUMNS: readonly Column<NewGap>[] = [
  { name: 'job_id', type: 'text', value: (g) => g.jobId },
  { name: 'workspace_id', type: 'text', value: (g) => g.workspaceId },
  { name: 'scheduled_for', type: 'timestamptz', value: (g) => g.scheduledFor },
  { name: 'due_at', type: 'timestamptz', value: (g) => g.dueAt },
  { name: 'outcome', type: 'text', value: (g) => g.outcome },
  { name: 'reason', type: 'text', value: (g) => g.reason },
  { name: 'execution_id', type: 'text', value: (g) => g.executionId },
];

const at = paramAfter(GAP_COLUMNS);
const isoOf = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

// The gaps, and per job one fire.missed event listing the slots this statement recorded (one
// window of missed slots, or one skip), written to the outbox only when the job has an on_missed
// rule and does not mute notifications. A slot already recorded is left as it is and not
// announced again.
const RECORD_GAPS_SQL = `
  WITH input AS (
    SELECT * FROM ${unnestFrom(GAP_COLUMNS, 'g')}
  ), gaps AS (
    INSERT INTO fire_gaps (job_id, workspace_id, scheduled_for, due_at, outcome, reason, execution_id, created_at)
    SELECT job_id, workspace_id, scheduled_for, due_at, outcome, reason, execution_id, ${at}::timestamptz FROM input
    ON CONFLICT (job_id, scheduled_for) DO NOTHING
    RETURNING job_id, workspace_id, scheduled_for, outcome, reason
  ), notices AS (
    INSERT INTO events (workspace_id, type, job_id, payload, created_at)
    SELECT g.workspace_id, 'fire.missed', j.id,
           jsonb_build_object(
             'event', 'fire.missed',
             'job', jsonb_build_object('id', j.id, 'name', j.name),
             'fires', jsonb_agg(jsonb_build_object('scheduled_for', ${isoOf('g.scheduled_for')}, 'outcome', g.outcome, 'reason', g.reason) ORDER BY g.scheduled_for),
             'timestamp', ${isoOf(`${at}::timestamptz`)}),
           ${at}::timestamptz
      FROM gaps AS g JOIN jobs AS j ON j.id = g.job_id
     WHERE j.notification_override <> 'mute_all'
       AND EXISTS (SELECT 1 FROM notification_rules AS r WHERE r.job_id = j.id AND r.event = 'on_missed')
     GROUP BY g.workspace_id, j.id, j.name
  )
  SELECT count(*)::int AS recorded FROM gaps`;

/** A pg client in a transaction, or a Prisma transaction. */
type Executor =
  | { query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: { recorded: number }[] }> }
  | { $queryRawUnsafe<T>(text: string, ...values: unknown[]): Promise<T> };

/**
 * Records slots without an execution, in the caller's transaction (the one that moves the job
 * past them, or deletes the skipped execution), with their on_missed notification. Answers how
 * many were new.
 */
export async function recordGaps(client: Executor, gaps: readonly NewGap[], now: Date): Promise<number> {
  if (gaps.length === 0) return 0;
  const values = [...columnArrays(GAP_COLUMNS, gaps), now.toISOString()];
  const rows = '$queryRawUnsafe' in client
    ? await client.$queryRawUnsafe<{ recorded: number }[]>(RECORD_GAPS_SQL, ...values)
    : (await client.query({ name: 'record-fire-gaps', text: RECORD_GAPS_SQL, values })).rows;
  return rows[0]?.recorded ?? 0;
}
