import type { HostLimit } from '@cronsvc/contracts';
import Joi from 'joi';
import type { Actor } from '../access/actor.js';
import { fieldsOf, writeAuditSql, type AuditEntry } from '../access/audit.js';
import { inTransaction, type SqlPool } from '../db/client.js';
import type { Deps } from '../deps/deps.js';
import { AppError } from '../errors/app-error.js';
import { pagingKeys, type Page } from '../lists/paging.js';
import { validate } from '../validation/validate.js';

/** A workspace's limits for one host and its cool-down, as stored (docs/JOBS.md, "Host budgets and Retry-After"). */
export interface HostLimitRow {
  host: string;
  maxConcurrency: number | null;
  maxPerSecond: number | null;
  cooldownUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
}


/** PUT /v1/host-limits/:host: at least one limit; one left out is none. */
export const hostLimitSchema = Joi.object({
  max_concurrency: Joi.number().integer().min(1).max(1000),
  max_per_second: Joi.number().min(0.1).max(10_000),
})
  .or('max_concurrency', 'max_per_second')
  .messages({ 'object.missing': 'give max_concurrency, max_per_second or both' });

export const hostLimitQuerySchema = Joi.object(pagingKeys);

// A URL's host name: a DNS name or an IPv4 address, or an IPv6 address in brackets; never a port.
const HOST_NAME = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*\.?|\[[0-9a-f:.]+\])$/;

/** The host a route names, lower-cased; a validation error for anything that is not a URL's host name. */
export function hostParam(value: string): string {
  const host = value.toLowerCase();
  if (host.length > 253 || !HOST_NAME.test(host)) {
    throw AppError.validation([{ path: 'host', message: "must be a URL's host name, without scheme, port or path (e.g. api.example.com)" }]);
  }
  return host;
}

const COLUMNS = `host, max_concurrency AS "maxConcurrency", max_per_second AS "maxPerSecond",
  CASE WHEN cooldown_until > now() THEN cooldown_until END AS "cooldownUntil", created_at AS "createdAt", updated_at AS "updatedAt"`;
// A row without limits exists only to hold a cool-down: it is shown while that runs.
const SHOWN = '(max_concurrency IS NOT NULL OR max_per_second IS NOT NULL OR cooldown_until > now())';

export function serializeHostLimit(row: HostLimitRow): HostLimit {
  return {
    host: row.host,
    max_concurrency: row.maxConcurrency,
    max_per_second: row.maxPerSecond,
    cooldown_until: row.cooldownUntil?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Sets a host's limits, replacing any it had (its cool-down stays); `created` when it had none. */
/** Runs a change with its event in one transaction; without an actor, the change alone. */
async function audited<T>(pool: SqlPool, actor: Actor | undefined, entry: AuditEntry, change: (client: Pick<SqlPool, 'query'>) => Promise<T>): Promise<T> {
  if (!actor) return change(pool);
  return inTransaction(pool, async (client) => {
    const result = await change(client);
    await writeAuditSql(client, actor, [entry]);
    return result;
  });
}

export async function putHostLimit(deps: Pick<Deps, 'pool' | 'clock'>, workspaceId: string, host: string, body: unknown, actor?: Actor): Promise<{ row: HostLimitRow; created: boolean }> {
  const name = hostParam(host);
  const input = validate<{ max_concurrency?: number; max_per_second?: number }>(hostLimitSchema, body);
  const entry = { action: 'host_limit.set', targetType: 'host_limit', targetId: name, changedFields: fieldsOf(body) };
  const { rows } = await audited(deps.pool, actor, entry, (client) => client.query<HostLimitRow & { replaced: boolean }>(
    `WITH prior AS (SELECT max_concurrency IS NOT NULL OR max_per_second IS NOT NULL AS limited FROM host_limits WHERE workspace_id = $1 AND host = $2)
     INSERT INTO host_limits (workspace_id, host, max_concurrency, max_per_second, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
     ON CONFLICT (workspace_id, host) DO UPDATE SET max_concurrency = EXCLUDED.max_concurrency, max_per_second = EXCLUDED.max_per_second,
       updated_at = EXCLUDED.updated_at,
       created_at = CASE WHEN host_limits.max_concurrency IS NULL AND host_limits.max_per_second IS NULL THEN EXCLUDED.created_at ELSE host_limits.created_at END
     RETURNING ${COLUMNS}, COALESCE((SELECT limited FROM prior), false) AS replaced`,
    [workspaceId, name, input.max_concurrency ?? null, input.max_per_second ?? null, deps.clock.now()],
  ));
  const { replaced, ...row } = rows[0];
  return { row, created: !replaced };
}

export async function findHostLimit(deps: Pick<Deps, 'pool'>, workspaceId: string, host: string): Promise<HostLimitRow> {
  const { rows } = await deps.pool.query<HostLimitRow>(`SELECT ${COLUMNS} FROM host_limits WHERE workspace_id = $1 AND host = $2 AND ${SHOWN}`, [workspaceId, hostParam(host)]);
  if (!rows[0]) throw AppError.notFound('host limit');
  return rows[0];
}

/** The workspace's hosts with limits or a cool-down running, by host name. */
export async function listHostLimits(deps: Pick<Deps, 'pool'>, workspaceId: string, query: unknown): Promise<Page<HostLimitRow>> {
  const q = validate<{ limit: number; offset: number }>(hostLimitQuerySchema.prefs({ convert: true }), query);
  const [{ rows: data }, { rows: count }] = await Promise.all([
    deps.pool.query<HostLimitRow>(`SELECT ${COLUMNS} FROM host_limits WHERE workspace_id = $1 AND ${SHOWN} ORDER BY host LIMIT $2 OFFSET $3`, [workspaceId, q.limit, q.offset]),
    deps.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM host_limits WHERE workspace_id = $1 AND ${SHOWN}`, [workspaceId]),
  ]);
  return { data, total: count[0].n, limit: q.limit, offset: q.offset };
}

/** Forgets a host: its limits and any cool-down running. */
export async function deleteHostLimit(deps: Pick<Deps, 'pool'>, workspaceId: string, host: string, actor?: Actor): Promise<void> {
  const name = hostParam(host);
  await audited(deps.pool, actor, { action: 'host_limit.deleted', targetType: 'host_limit', targetId: name }, async (client) => {
    const { rowCount } = await client.query(`DELETE FROM host_limits WHERE workspace_id = $1 AND host = $2 AND ${SHOWN}`, [workspaceId, name]);
    if (!rowCount) throw AppError.notFound('host limit');
  });
}

/** The cool-downs running for these hosts of the workspace (an execution's page shows its own). */
export async function hostCooldowns(deps: Pick<Deps, 'pool'>, workspaceId: string, hosts: string[]): Promise<{ host: string; until: Date }[]> {
  if (hosts.length === 0) return [];
  const { rows } = await deps.pool.query<{ host: string; until: Date }>(
    'SELECT host, cooldown_until AS until FROM host_limits WHERE workspace_id = $1 AND host = ANY($2::text[]) AND cooldown_until > now() ORDER BY host',
    [workspaceId, hosts],
  );
  return rows;
}
