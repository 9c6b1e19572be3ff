import Joi from 'joi';

/**
 * Every queue and job name in one place. Renaming one while jobs are in flight strands
 * them, so names only ever get added. Payloads carry ids, never rows.
 */
export const catalog = {
  execution: {
    queue: 'executions',
    job: 'execution.run',
    schema: Joi.object({ executionId: Joi.string().required(), attempt: Joi.number().integer().min(1).required(), runAt: Joi.number(), workspaceId: Joi.string(), traceparent: Joi.string() }).unknown(true),
  },
  delivery: {
    queue: 'deliveries',
    job: 'delivery.send',
    schema: Joi.object({ deliveryId: Joi.string().required(), attempt: Joi.number().integer().min(1).required() }).unknown(true),
  },
} as const;

export interface ExecutionPayload {
  executionId: string;
  /** The attempt this queue job is for: part of its id, so each attempt is queued once. */
  attempt: number;
  /**
   * When the attempt is due (ms since the epoch). The queue hands it over up to
   * EXECUTOR_PREFETCH_MS earlier and the executor holds it until then. Absent from jobs queued
   * by older versions: those are taken as due at once.
   */
  runAt?: number;
  /**
   * The execution's workspace: the executor hands its attempt slots to waiting workspaces in turn
   * (docs/adr/022-fair-share-between-workspaces.md). Absent from jobs queued by older versions.
   */
  workspaceId?: string;
  /**
   * The enqueue's span (docs/adr/030-spans-exported-over-otlp.md), the parent of the claim's; only
   * when spans are exported, and absent from jobs queued by older versions.
   */
  traceparent?: string;
}

export interface DeliveryPayload {
  deliveryId: string;
  /** The delivery attempt this queue job is for: part of its id, so each attempt is queued once. */
  attempt: number;
}

export type QueueName = keyof typeof catalog;

/** Deterministic BullMQ job ids: re-adding the same attempt is a no-op while it is still queued. */
export function executionJobId(executionId: string, attempt: number): string {
  return `${executionId}-${attempt}`;
}

export function deliveryJobId(deliveryId: string, attempt: number): string {
  return `${deliveryId}-${attempt}`;
}
