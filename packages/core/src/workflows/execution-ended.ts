import type pg from 'pg';
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
 * Everything a step-driven execution owes when it ends, written in the transaction that records
 * its end so a crash can delay it but not lose it: its callback delivery (README "Callbacks"),
 * built exactly as a request job's. The one place step-driven runs write "execution ended".
 * Returns the delivery to queue after the commit.
 */
export async function writeExecutionEnded(client: pg.PoolClient, ended: ExecutionEnded): Promise<{ callbackId: string | null }> {
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
  if (!delivery) return { callbackId: null };
  await client.query(
    `INSERT INTO deliveries (id, workspace_id, execution_id, kind, event, url, payload, status, next_attempt_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $8, $8)`,
    [delivery.id, delivery.workspaceId, delivery.executionId, delivery.kind, delivery.event, delivery.url, JSON.stringify(delivery.payload), ended.at],
  );
  return { callbackId: delivery.id };
}
