import type { Deps } from '../deps/deps.js';

/**
 * Queues deliveries Redis should hold but may have lost: pending ones due before
 * `dueBefore`, and processing ones whose sender's lease expired. Plain SQL on the pool, as
 * reconcileQueue, so that an idle scheduler does not load Prisma's query compiler.
 */
export async function reconcileDeliveries(deps: Deps, options: { dueBefore: Date; batchSize?: number }): Promise<number> {
  const { rows } = await deps.pool.query<{ id: string; attempts: number; next_attempt_at: Date | null }>(
    `SELECT id, attempts, next_attempt_at FROM deliveries
      WHERE (status = 'pending' AND (next_attempt_at IS NULL OR next_attempt_at <= $1::timestamptz))
         OR (status = 'processing' AND next_attempt_at < $2::timestamptz)
      ORDER BY next_attempt_at
      LIMIT $3`,
    [options.dueBefore.toISOString(), deps.clock.now().toISOString(), options.batchSize ?? 1000],
  );
  // A processing delivery's next attempt is the one after the attempt its dead sender counted.
  await deps.queues.requeueDeliveries(rows.map((r) => ({ deliveryId: r.id, attempt: r.attempts + 1, runAt: r.next_attempt_at ?? deps.clock.now() })));
  return rows.length;
}
