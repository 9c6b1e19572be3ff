import type { Db, Prisma } from '../db/client.js';
import type { EventType } from '@cronsvc/contracts';

/** A state change a notification may be about, for the outbox (docs/adr/009). */
export interface NewEvent {
  workspaceId: string;
  type: EventType;
  executionId?: string | null;
  monitorId?: string | null;
  /**
   * The payload as a webhook receives it. Leave it out for execution.succeeded and
   * execution.failed: the relay builds those from the execution's final state.
   */
  payload?: unknown;
}

/**
 * The insert, for a statement of the caller's own (e.g. a CTE): $1 workspace id, $2 type,
 * $3 execution id, $4 monitor id, $5 payload (jsonb text or null), $6 created_at.
 */
export const EVENT_INSERT_SQL = `INSERT INTO events (workspace_id, type, execution_id, monitor_id, payload, created_at) VALUES ($1, $2, $3, $4, $5::jsonb, $6::timestamptz)`;

type Executor = Db | Prisma.TransactionClient | { query(text: string, values: unknown[]): Promise<unknown> };

/**
 * Writes an event to the outbox. Call it inside the transaction that makes the change the event
 * is about, so the notification commits with the change or not at all; the notifier's relay
 * turns it into deliveries (approval.required goes to the job's on_approval_required rules).
 * Takes a Prisma client or transaction, or a pg client.
 */
export async function insertEvent(tx: Executor, event: NewEvent, at: Date): Promise<void> {
  const values = [
    event.workspaceId,
    event.type,
    event.executionId ?? null,
    event.monitorId ?? null,
    event.payload === undefined || event.payload === null ? null : JSON.stringify(event.payload),
    at.toISOString(),
  ];
  if ('$executeRawUnsafe' in tx) await tx.$executeRawUnsafe(EVENT_INSERT_SQL, ...values);
  else await tx.query(EVENT_INSERT_SQL, values);
}

/**
 * Whether an execution that ended owes anything, as a SQL condition over its job (`job` is the
 * alias of its jobs row, `status` the SQL of its final status): a callback URL for its outcome, or
 * a notification rule while the job is not muted. An execution that owes nothing writes no event,
 * so the many jobs without callbacks or rules cost the outbox and the relay nothing.
 */
export function executionEventWanted(job: string, status: string): string {
  return `((${status} = 'succeeded' AND ${job}.on_success_url IS NOT NULL)
        OR (${status} = 'failed' AND ${job}.on_failure_url IS NOT NULL)
        OR (${job}.notification_override <> 'mute_all' AND EXISTS (SELECT 1 FROM notification_rules AS r WHERE r.job_id = ${job}.id)))`;
}
