import type { RuleEvent, SnoozeLink } from '@cronsvc/contracts';
import Joi from 'joi';
import { publicActor, type Actor } from '../access/actor.js';
import { writeAudit } from '../access/audit.js';
import type { NotificationRule } from '../db/generated/client.js';
import type { SqlPool } from '../db/client.js';
import type { Deps } from '../deps/deps.js';
import { AppError } from '../errors/app-error.js';
import { hashToken } from '../ids/ids.js';
import { currentRequestId } from '../logging/log-context.js';
import { validate } from '../validation/validate.js';

/**
 * Snoozing a rule (docs/NOTIFICATIONS.md, "Snooze"): while snoozed it delivers nothing and counts
 * what it held back; its first delivery after says how many. A rule is snoozed through the API,
 * or through the public link in a failure or monitor-down message (a bearer token, valid 7 days).
 */

export const SNOOZE_LINK_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Minutes a snooze link snoozes for when it does not say. */
export const SNOOZE_LINK_DEFAULT_MINUTES = 60;
export const MAX_SNOOZE_MINUTES = 10080;

/** Where a snooze link's token is handed out, under the public prefixes. */
export const snoozeLinkUrl = (publicBaseUrl: string, token: string) => `${publicBaseUrl}/v1/snooze/${token}`;

const minutesSchema = Joi.number().integer().min(1).max(MAX_SNOOZE_MINUTES);
export const snoozeSchema = Joi.object({ minutes: minutesSchema.required() });
export const snoozeLinkQuery = Joi.object({ minutes: minutesSchema });
const linkSchema = Joi.object({ minutes: minutesSchema.default(SNOOZE_LINK_DEFAULT_MINUTES) });

export async function getRuleById(deps: Pick<Deps, 'db'>, workspaceId: string, ruleId: string): Promise<NotificationRule> {
  const rule = await deps.db.notificationRule.findFirst({ where: { id: ruleId, workspaceId } });
  if (!rule) throw AppError.notFound('notification rule');
  return rule;
}

async function setSnooze(deps: Pick<Deps, 'db' | 'clock'>, where: { id: string; workspaceId?: string }, until: Date | null, actor: Actor | undefined): Promise<NotificationRule> {
  return deps.db.$transaction(async (tx) => {
    const { count } = await tx.notificationRule.updateMany({ where, data: { snoozedUntil: until, updatedAt: deps.clock.now() } });
    if (count === 0) throw AppError.notFound('notification rule');
    const action = until ? 'notification_rule.snoozed' : 'notification_rule.unsnoozed';
    await writeAudit(tx, actor, { action, targetType: 'notification_rule', targetId: where.id, changedFields: ['snoozed_until'] });
    return (await tx.notificationRule.findUnique({ where: { id: where.id } })) as NotificationRule;
  });
}

/** POST /v1/notification-rules/:id/snooze `{minutes}`: job and monitor rules alike. */
export async function snoozeRule(deps: Pick<Deps, 'db' | 'clock'>, workspaceId: string, ruleId: string, body: unknown, actor?: Actor): Promise<NotificationRule> {
  const { minutes } = validate<{ minutes: number }>(snoozeSchema, body ?? {});
  return setSnooze(deps, { id: ruleId, workspaceId }, new Date(deps.clock.now().getTime() + minutes * 60_000), actor);
}

/** Where a snooze "until unsnoozed" (the console's) ends: never, in practice. */
export const UNTIL_UNSNOOZED = new Date('9999-12-31T00:00:00.000Z');

/** The console's "until unsnoozed": a snooze that only Unsnooze ends. */
export async function snoozeRuleUntilUnsnoozed(deps: Pick<Deps, 'db' | 'clock'>, workspaceId: string, ruleId: string, actor?: Actor): Promise<NotificationRule> {
  return setSnooze(deps, { id: ruleId, workspaceId }, UNTIL_UNSNOOZED, actor);
}

export async function unsnoozeRule(deps: Pick<Deps, 'db' | 'clock'>, workspaceId: string, ruleId: string, actor?: Actor): Promise<NotificationRule> {
  return setSnooze(deps, { id: ruleId, workspaceId }, null, actor);
}

/** The rule a snooze link names, while the link is valid. */
async function linkRule(deps: Pick<Deps, 'db' | 'clock'>, token: string): Promise<NotificationRule> {
  const found = await deps.db.ruleSnoozeToken.findUnique({ where: { tokenHash: hashToken(token) }, include: { rule: true } });
  if (!found || found.expiresAt.getTime() <= deps.clock.now().getTime()) throw new AppError('not_found', 'this snooze link is unknown or has expired (links are valid 7 days)');
  return found.rule;
}

/** What the confirmation page of a snooze link shows (GET never snoozes). */
export async function snoozeLinkView(deps: Pick<Deps, 'db' | 'clock'>, token: string): Promise<{ rule: NotificationRule; target: string; link: SnoozeLink }> {
  const rule = await linkRule(deps, token);
  const name = rule.jobId
    ? ((await deps.db.job.findUnique({ where: { id: rule.jobId }, select: { name: true } }))?.name ?? rule.jobId)
    : ((await deps.db.monitor.findUnique({ where: { id: rule.monitorId ?? '' }, select: { name: true } }))?.name ?? rule.monitorId ?? '');
  const snoozed = rule.snoozedUntil !== null && rule.snoozedUntil.getTime() > deps.clock.now().getTime();
  const link: SnoozeLink = { event: rule.event as RuleEvent, job_id: rule.jobId, monitor_id: rule.monitorId, name, snoozed_until: snoozed ? (rule.snoozedUntil as Date).toISOString() : null };
  return { rule, target: `${rule.jobId ? 'job' : 'monitor'} "${name}"`, link };
}

/** POST on a snooze link: snoozes its rule for `minutes` (default 60); the audit log names a public caller. */
export async function snoozeByLink(deps: Pick<Deps, 'db' | 'clock'>, token: string, query: unknown): Promise<NotificationRule> {
  const rule = await linkRule(deps, token);
  const { minutes } = validate<{ minutes: number }>(linkSchema.prefs({ convert: true }), query ?? {});
  return setSnooze(deps, { id: rule.id }, new Date(deps.clock.now().getTime() + minutes * 60_000), publicActor(rule.workspaceId, currentRequestId() ?? null));
}

/** Whether a snooze link's token was handed out (for the public rate limit's key). */
export async function snoozeTokenKnown(deps: { pool: SqlPool }, token: string): Promise<boolean> {
  const { rowCount } = await deps.pool.query('SELECT 1 FROM rule_snooze_tokens WHERE token_hash = $1 AND expires_at > now()', [hashToken(token)]);
  return (rowCount ?? 0) > 0;
}

/** Deletes expired snooze links (with retention). */
export async function pruneSnoozeTokens(deps: { pool: SqlPool }): Promise<number> {
  const { rowCount } = await deps.pool.query('DELETE FROM rule_snooze_tokens WHERE expires_at < now()');
  return rowCount ?? 0;
}
