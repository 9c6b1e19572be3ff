import { DELIVERY_STATUSES, type Delivery as DeliveryView, type DeliveryKind, type DeliveryStatus, type RuleEvent } from '@cronsvc/contracts';
import Joi from 'joi';
import type { Actor } from '../access/actor.js';
import { writeAudit } from '../access/audit.js';
import type { Delivery, Prisma } from '../db/generated/client.js';
import { AppError } from '../errors/app-error.js';
import { pagingKeys, type Page } from '../lists/paging.js';
import type { Deps } from '../deps/deps.js';
import { validate } from '../validation/validate.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A delivery as the API shows it; callbacks have no channel or rule, channel deliveries no url (it is a credential). */
export function serializeDelivery(d: Delivery): DeliveryView {
  return {
    id: d.id,
    kind: d.kind as DeliveryKind,
    channel_id: d.channelId,
    rule_id: d.ruleId,
    event: d.event as RuleEvent,
    execution_id: d.executionId,
    monitor_id: d.monitorId,
    url: d.url,
    status: d.status as DeliveryStatus,
    attempts: d.attempts,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    // While it is being sent, next_attempt_at holds the sender's lease, not a planned attempt.
    next_attempt_at: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
    sent_at: iso(d.sentAt),
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}

export const querySchema = Joi.object({ status: Joi.string().valid(...DELIVERY_STATUSES), ...pagingKeys });

export async function listDeliveries(
  deps: Pick<Deps, 'db'>,
  workspaceId: string,
  query: unknown,
  executionId?: string,
): Promise<Page<Delivery>> {
  const q = validate<{ status?: string; limit: number; offset: number }>(querySchema.prefs({ convert: true }), query);
  const where: Prisma.DeliveryWhereInput = { workspaceId, ...(executionId ? { executionId } : {}), ...(q.status ? { status: q.status } : {}) };
  const [data, total] = await Promise.all([
    deps.db.delivery.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: q.limit, skip: q.offset }),
    deps.db.delivery.count({ where }),
  ]);
  return { data, total, limit: q.limit, offset: q.offset };
}

/** A failed delivery starts a new round of attempts (docs/NOTIFICATIONS.md, "Deliveries"); anything else is 409. */
export async function retryDelivery(deps: Pick<Deps, 'db' | 'queues' | 'clock' | 'logger'>, workspaceId: string, id: string, actor?: Actor): Promise<Delivery> {
  const now = deps.clock.now();
  const delivery = await deps.db.$transaction(async (tx) => {
    const { count } = await tx.delivery.updateMany({
      where: { id, workspaceId, status: 'failed' },
      data: { status: 'pending', attempts: 0, nextAttemptAt: now, lastError: null },
    });
    const row = await tx.delivery.findFirst({ where: { id, workspaceId } });
    if (!row) throw AppError.notFound('delivery');
    if (count === 0) throw AppError.invalidState(`delivery is ${row.status}; only a failed delivery can be retried`);
    await writeAudit(tx, actor, { action: 'delivery.retried', targetType: 'delivery', targetId: id, changedFields: ['status'] });
    return row;
  });
  try {
    await deps.queues.enqueueDeliveries([{ deliveryId: id, attempt: 1, runAt: now }]);
  } catch (error) {
    deps.logger.warn('queueing a delivery retry failed; the reconciler will queue it', { deliveryId: id, error: (error as Error).message });
  }
  return delivery;
}
