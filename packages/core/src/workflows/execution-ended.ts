import type { SqlBuilder } from '../db/client.js';
import { callbackDelivery } from '../deliveries/callback-deliveries.js';
import { executionEvent } from '../deliveries/execution-event.js';

/** How a step-driven execution ended, as its callback (and, later, its notifications) report it. */
export interface ExecutionEnded {
  workspaceId: string;
  executionId: string;
  job: { id: string; name: string };
  outcome: 'succeeded' | 'failed';
  statusCode: number | null;
  bodyPreview: string | null;
  errorClass: string | null;
  output: unknown;
  onSuccessUrl: string | null;
  onFailureUrl: string | null;
  at: Date;
}

/**
 * Everything a step-driven execution owes when it ends: its callback delivery (README
 * "Callbacks"), built exactly as a request job's. The one place step-driven runs write
 * "execution ended". It returns CTEs for the statement that records the end, each inserting only
 * `FROM guard` (the CTE of the execution's guarded update), so the end and what it owes commit
 * together or not at all, and a crash can delay a callback but not lose it. Also returns the
 * delivery to queue after the commit.
 */
export function executionEndedWrites(b: SqlBuilder, ended: ExecutionEnded, guard: string): { ctes: string[]; callbackId: string | null } {
  const delivery = callbackDelivery({
    workspaceId: ended.workspaceId,
    executionId: ended.executionId,
    outcome: ended.outcome,
    onSuccessUrl: ended.onSuccessUrl,
    onFailureUrl: ended.onFailureUrl,
    payload: executionEvent({
      status: ended.outcome,
      job: ended.job,
      executionId: ended.executionId,
      statusCode: ended.statusCode,
      bodyPreview: ended.bodyPreview,
      errorClass: ended.errorClass,
      output: ended.output,
      at: ended.at,
    }),
    now: ended.at,
  });
  if (!delivery) return { ctes: [], callbackId: null };
  const at = b.param(ended.at);
  const values = [delivery.id, delivery.workspaceId, delivery.executionId, delivery.kind, delivery.event, delivery.url, JSON.stringify(delivery.payload)].map((v) => b.param(v));
  return {
    ctes: [
      `callback AS (INSERT INTO deliveries (id, workspace_id, execution_id, kind, event, url, payload, status, next_attempt_at, created_at, updated_at)
        SELECT ${values.slice(0, 6).map((v) => `${v}::text`).join(', ')}, ${values[6]}::jsonb, 'pending', ${at}::timestamptz, ${at}::timestamptz, ${at}::timestamptz FROM ${guard})`,
    ],
    callbackId: delivery.id,
  };
}
