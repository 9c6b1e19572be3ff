import type { Prisma } from '../db/client.js';
import { newId } from '../ids/ids.js';
import type { ExecutionEvent } from './execution-event.js';

export const DELIVERY_ATTEMPTS = 5;

/**
 * The callback a finished execution owes (on_success_url or on_failure_url), as a pending
 * delivery row. It is written in the same transaction as the execution's final state, so a
 * crash can delay a callback but never lose it.
 */
export function callbackDelivery(input: {
  workspaceId: string;
  executionId: string;
  outcome: 'succeeded' | 'failed';
  onSuccessUrl: string | null;
  onFailureUrl: string | null;
  payload: ExecutionEvent;
  now: Date;
}): Prisma.DeliveryCreateManyInput | null {
  const url = input.outcome === 'succeeded' ? input.onSuccessUrl : input.onFailureUrl;
  if (!url) return null;
  return {
    id: newId('dlv'),
    workspaceId: input.workspaceId,
    executionId: input.executionId,
    kind: 'callback',
    event: input.outcome === 'succeeded' ? 'on_success' : 'on_failure',
    url,
    payload: input.payload as unknown as Prisma.InputJsonValue,
    status: 'pending',
    nextAttemptAt: input.now,
  };
}
