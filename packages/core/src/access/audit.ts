import type { AuditEvent } from '@cronsvc/contracts';
import Joi from 'joi';
import type { Db, Prisma, SqlPool } from '../db/client.js';
import { newId } from '../ids/ids.js';
import type { Deps } from '../deps/deps.js';
import { pagingKeys, type Page } from '../lists/paging.js';
import { validate } from '../validation/validate.js';
import type { Actor } from './actor.js';

/**
 * One change for the audit log (docs/API.md, "Audit log"). `action` is `<object>.<verb>`;
 * `changedFields` are the names of the fields given, never their values: no secret value, token
 * or request body ever enters the log.
 */
export interface AuditEntry {
  action: string;
  targetType: string;
  targetId: string | null;
  changedFields?: string[];
}

/** What writes an audit event: the transaction of the change (or the client, for a change that is one statement). */
export type AuditWriter = Pick<Db, 'auditEvent'>;

/** The row of an event, for a use case that writes it inside a statement of its own. */
export function auditRow(actor: Actor, entry: AuditEntry, createdAt?: Date) {
  return {
    id: newId('aud'),
    workspaceId: actor.workspaceId,
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    actorType: actor.kind,
    actorTokenId: actor.tokenId,
    actorName: actor.name,
    requestId: actor.requestId,
    changedFields: entry.changedFields ?? [],
    ...(createdAt ? { createdAt } : {}),
  };
}

/**
 * Writes the event of a change, in the transaction `tx` that makes the change, so one never
 * commits without the other. Without an actor (a change made by the service itself, or a test
 * calling the use case directly) nothing is written.
 */
export async function writeAudit(tx: AuditWriter, actor: Actor | undefined, entries: AuditEntry | AuditEntry[]): Promise<void> {
  if (!actor) return;
  const list = Array.isArray(entries) ? entries : [entries];
  if (list.length === 1) await tx.auditEvent.create({ data: auditRow(actor, list[0]) });
  else if (list.length > 1) await tx.auditEvent.createMany({ data: list.map((e) => auditRow(actor, e)) });
}

/**
 * Writes the events of changes made through a raw SQL transaction (`client` is inside it), in one
 * statement; without an actor nothing is written, as writeAudit.
 */
export async function writeAuditSql(client: Pick<SqlPool, 'query'>, actor: Actor | undefined, entries: AuditEntry[]): Promise<void> {
  if (!actor || entries.length === 0) return;
  const rows = entries.map((e) => auditRow(actor, e));
  await client.query({
    text: `INSERT INTO audit_events (id, workspace_id, action, target_type, target_id, actor_type, actor_token_id, actor_name, request_id, changed_fields, created_at)
           SELECT t.id, $2, t.action, t.target_type, t.target_id, $3, $4, $5, $6, t.changed_fields, now()
             FROM unnest($1::text[], $7::text[], $8::text[], $9::text[], $10::jsonb[]) AS t(id, action, target_type, target_id, changed_fields)`,
    values: [rows.map((r) => r.id), actor.workspaceId, actor.kind, actor.tokenId, actor.name, actor.requestId, rows.map((r) => r.action), rows.map((r) => r.targetType), rows.map((r) => r.targetId), rows.map((r) => JSON.stringify(r.changedFields))],
  });
}

/**
 * Runs a change that is one Prisma statement together with its event, in one transaction (a
 * batch: one round trip more than the change alone); without an actor, the change alone.
 */
export async function withAudit<T>(db: Pick<Db, 'auditEvent' | '$transaction'>, change: Prisma.PrismaPromise<T>, actor: Actor | undefined, entry: AuditEntry): Promise<T> {
  if (!actor) return change;
  const [result] = await db.$transaction([change, db.auditEvent.create({ data: auditRow(actor, entry) })]);
  return result;
}

/** The top-level field names of a request body: what a change names in `changed_fields` (a field left undefined is not given). */
export function fieldsOf(body: unknown): string[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return [];
  return Object.entries(body)
    .filter(([, value]) => value !== undefined)
    .map(([key]) => key)
    .sort();
}

export const auditQuerySchema = Joi.object({
  ...pagingKeys,
  action: Joi.string().max(100).pattern(/^[a-z_]+\.[a-z_]+$/),
  target_id: Joi.string().max(200).pattern(/^[A-Za-z0-9_-]+$/),
  from: Joi.date().iso(),
  to: Joi.date().iso(),
});

interface AuditQuery {
  limit: number;
  offset: number;
  action?: string;
  target_id?: string;
  from?: Date;
  to?: Date;
}

export type AuditEventRow = NonNullable<Awaited<ReturnType<Db['auditEvent']['findFirst']>>>;

/** The workspace's events, newest first; `from` and `to` bound `created_at` (both inclusive). */
export async function listAuditEvents(deps: Pick<Deps, 'db'>, workspaceId: string, query: unknown): Promise<Page<AuditEventRow>> {
  const q = validate<AuditQuery>(auditQuerySchema.prefs({ convert: true }), query);
  const createdAt = q.from || q.to ? { ...(q.from ? { gte: q.from } : {}), ...(q.to ? { lte: q.to } : {}) } : undefined;
  const where = { workspaceId, ...(q.action ? { action: q.action } : {}), ...(q.target_id ? { targetId: q.target_id } : {}), ...(createdAt ? { createdAt } : {}) };
  const [data, total] = await Promise.all([
    deps.db.auditEvent.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: q.limit, skip: q.offset }),
    deps.db.auditEvent.count({ where }),
  ]);
  return { data, total, limit: q.limit, offset: q.offset };
}

export function serializeAuditEvent(e: AuditEventRow): AuditEvent {
  return {
    id: e.id,
    action: e.action,
    target_type: e.targetType,
    target_id: e.targetId,
    actor: { type: e.actorType as AuditEvent['actor']['type'], token_id: e.actorTokenId, name: e.actorName },
    request_id: e.requestId,
    changed_fields: e.changedFields as string[],
    created_at: e.createdAt.toISOString(),
  };
}

/** Deletes events older than `olderThan` (AUDIT_RETENTION_DAYS), a batch at a time; returns how many went. */
export async function pruneAuditEvents(deps: { pool: SqlPool }, options: { olderThan: Date; batchSize?: number }): Promise<number> {
  const batch = options.batchSize ?? 5000;
  let total = 0;
  for (;;) {
    const { rowCount } = await deps.pool.query(
      // By row address: the key is (workspace_id, created_at, id), and the old rows are found
      // through the BRIN index on created_at.
      'DELETE FROM audit_events WHERE ctid = ANY(ARRAY(SELECT ctid FROM audit_events WHERE created_at < $1 LIMIT $2))',
      [options.olderThan, batch],
    );
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < batch) return total;
  }
}
