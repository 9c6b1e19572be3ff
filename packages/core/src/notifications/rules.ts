import { JOB_RULE_EVENTS, MONITOR_RULE_EVENTS, type Rule, type RuleEvent } from '@cronsvc/contracts';
import Joi from 'joi';
import type { Actor } from '../access/actor.js';
import { fieldsOf, withAudit, writeAudit } from '../access/audit.js';
import { Prisma } from '../db/client.js';
import type { NotificationRule } from '../db/generated/client.js';
import { AppError } from '../errors/app-error.js';
import { newId } from '../ids/ids.js';
import { pagingKeys, type Page } from '../lists/paging.js';
import type { Deps } from '../deps/deps.js';
import { validate } from '../validation/validate.js';

/** What a rule hangs on: a job (execution and approval events) or a monitor (down and recovery). */
export type RuleOwner = { kind: 'job'; id: string } | { kind: 'monitor'; id: string };

// The streak options belong to on_failure rules of jobs (docs/NOTIFICATIONS.md, "Quiet but safe alerts").
const onFailureOnly = (schema: Joi.Schema) =>
  Joi.when('event', { is: 'on_failure', then: schema, otherwise: Joi.forbidden().messages({ 'any.unknown': '{{#label}} applies to on_failure rules only' }) });

export const schemas = {
  job: Joi.object({
    channel_id: Joi.string().max(100).required(),
    event: Joi.string().valid(...JOB_RULE_EVENTS).required(),
    after_consecutive_failures: onFailureOnly(Joi.number().integer().min(1).max(100)),
    realert_after_minutes: onFailureOnly(Joi.number().integer().min(0).max(10080).allow(null)),
  }),
  monitor: Joi.object({ channel_id: Joi.string().max(100).required(), event: Joi.string().valid(...MONITOR_RULE_EVENTS).required() }),
};
const querySchema = Joi.object(pagingKeys);

const ownerWhere = (owner: RuleOwner) => (owner.kind === 'job' ? { jobId: owner.id } : { monitorId: owner.id });

/** The owner must be the workspace's; another workspace's answers 404 like a missing one. */
async function assertOwner(deps: Pick<Deps, 'db'>, workspaceId: string, owner: RuleOwner): Promise<void> {
  const found =
    owner.kind === 'job'
      ? await deps.db.job.findFirst({ where: { id: owner.id, workspaceId }, select: { id: true } })
      : await deps.db.monitor.findFirst({ where: { id: owner.id, workspaceId }, select: { id: true } });
  if (!found) throw AppError.notFound(owner.kind);
}

export async function createRule(deps: Pick<Deps, 'db' | 'clock'>, workspaceId: string, owner: RuleOwner, body: unknown, actor?: Actor): Promise<NotificationRule> {
  await assertOwner(deps, workspaceId, owner);
  const input = validate<{ channel_id: string; event: string; after_consecutive_failures?: number; realert_after_minutes?: number | null }>(schemas[owner.kind], body);
  const channel = await deps.db.notificationChannel.findFirst({ where: { id: input.channel_id, workspaceId }, select: { id: true } });
  if (!channel) throw AppError.validation([{ path: 'channel_id', message: 'no notification channel with this id in this workspace' }]);
  const now = deps.clock.now();
  const id = newId('rul');
  try {
    const create = deps.db.notificationRule.create({
      data: {
        id,
        workspaceId,
        channelId: channel.id,
        event: input.event,
        afterConsecutiveFailures: input.after_consecutive_failures ?? 1,
        realertAfterMinutes: input.realert_after_minutes === undefined ? 0 : input.realert_after_minutes,
        ...ownerWhere(owner),
        createdAt: now,
        updatedAt: now,
      },
    });
    return await withAudit(deps.db, create, actor, { action: 'notification_rule.created', targetType: 'notification_rule', targetId: id, changedFields: fieldsOf(body) });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      throw new AppError('conflict', `this ${owner.kind} already has a rule sending ${input.event} to this channel`);
    }
    // The channel was deleted between the check and the insert.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2003') {
      throw AppError.validation([{ path: 'channel_id', message: 'no notification channel with this id in this workspace' }]);
    }
    throw error;
  }
}

export async function listRules(deps: Pick<Deps, 'db'>, workspaceId: string, owner: RuleOwner, query: unknown): Promise<Page<NotificationRule>> {
  await assertOwner(deps, workspaceId, owner);
  const q = validate<{ limit: number; offset: number }>(querySchema.prefs({ convert: true }), query);
  const where = { workspaceId, ...ownerWhere(owner) };
  const [data, total] = await Promise.all([
    deps.db.notificationRule.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: q.limit, skip: q.offset }),
    deps.db.notificationRule.count({ where }),
  ]);
  return { data, total, limit: q.limit, offset: q.offset };
}

export async function deleteRule(deps: Pick<Deps, 'db'>, workspaceId: string, owner: RuleOwner, ruleId: string, actor?: Actor): Promise<void> {
  await assertOwner(deps, workspaceId, owner);
  await deps.db.$transaction(async (tx) => {
    const { count } = await tx.notificationRule.deleteMany({ where: { id: ruleId, workspaceId, ...ownerWhere(owner) } });
    if (count === 0) throw AppError.notFound('notification rule');
    await writeAudit(tx, actor, { action: 'notification_rule.deleted', targetType: 'notification_rule', targetId: ruleId });
  });
}

/** `now` decides whether a snooze still holds: one that has passed reads as null. */
export function serializeRule(rule: NotificationRule, now: Date = new Date()): Rule {
  const snoozed = rule.snoozedUntil !== null && rule.snoozedUntil.getTime() > now.getTime();
  return {
    id: rule.id,
    channel_id: rule.channelId,
    event: rule.event as RuleEvent,
    job_id: rule.jobId,
    monitor_id: rule.monitorId,
    after_consecutive_failures: rule.afterConsecutiveFailures,
    realert_after_minutes: rule.realertAfterMinutes,
    snoozed_until: snoozed ? (rule.snoozedUntil as Date).toISOString() : null,
    last_delivered_at: rule.lastDeliveredAt?.toISOString() ?? null,
    held_back: rule.heldBack,
    created_at: rule.createdAt.toISOString(),
    updated_at: rule.updatedAt.toISOString(),
  };
}
