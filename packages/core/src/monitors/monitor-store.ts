import { MONITOR_STATES, type Monitor as MonitorView, type MonitorPing, type MonitorPingKind, type MonitorState } from '@cronsvc/contracts';
import Joi from 'joi';
import type { Db, Prisma } from '../db/client.js';
import type { Monitor } from '../db/generated/client.js';
import type { Config } from '../config/config.js';
import type { Actor } from '../access/actor.js';
import { writeAudit } from '../access/audit.js';
import { AppError } from '../errors/app-error.js';
import { pagingKeys, type Page } from '../lists/paging.js';
import type { Deps } from '../deps/deps.js';
import { validate } from '../validation/validate.js';
import { revealPingToken } from './ping-token.js';
import { PINGS_KEPT } from './record-ping.js';
import { badgeUrl } from '../jobs/public-urls.js';

export type MonitorRow = Monitor;

export async function findMonitor(db: Db | Prisma.TransactionClient, workspaceId: string, id: string): Promise<MonitorRow> {
  const monitor = await db.monitor.findFirst({ where: { id, workspaceId } });
  if (!monitor) throw AppError.notFound('monitor');
  return monitor;
}

export const querySchema = Joi.object({ state: Joi.string().valid(...MONITOR_STATES), ...pagingKeys });

export async function listMonitors(deps: Pick<Deps, 'db'>, workspaceId: string, query: unknown): Promise<Page<MonitorRow>> {
  const q = validate<{ state?: string; limit: number; offset: number }>(querySchema.prefs({ convert: true }), query);
  const where = { workspaceId, ...(q.state ? { state: q.state } : {}) };
  const [data, total] = await Promise.all([
    deps.db.monitor.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: q.limit, skip: q.offset }),
    deps.db.monitor.count({ where }),
  ]);
  return { data, total, limit: q.limit, offset: q.offset };
}

/** Deletes a monitor with its rules, deliveries and pings. */
export async function deleteMonitor(deps: Pick<Deps, 'db'>, workspaceId: string, id: string, actor?: Actor): Promise<void> {
  await deps.db.$transaction(async (tx) => {
    const { count } = await tx.monitor.deleteMany({ where: { id, workspaceId } });
    if (count === 0) throw AppError.notFound('monitor');
    await writeAudit(tx, actor, { action: 'monitor.deleted', targetType: 'monitor', targetId: id });
  });
}

export const pingUrl = (publicBaseUrl: string, token: string) => `${publicBaseUrl}/v1/ping/${token}`;

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function serializeMonitor(monitor: MonitorRow, config: Pick<Config, 'secretsEncryptionKey' | 'publicBaseUrl'>): MonitorView {
  const token = revealPingToken(config.secretsEncryptionKey, monitor);
  return {
    id: monitor.id,
    name: monitor.name,
    expected_interval_sec: monitor.expectedIntervalSec,
    schedule: monitor.scheduleCron === null ? null : { cron: monitor.scheduleCron },
    grace_sec: monitor.graceSec,
    max_duration_sec: monitor.maxDurationSec,
    state: monitor.state as MonitorState,
    last_ping_at: iso(monitor.lastPingAt),
    next_expected_at: iso(monitor.nextExpectedAt),
    next_due_at: iso(monitor.nextDueAt),
    last_duration_ms: monitor.lastDurationMs,
    ping_url: token === null ? null : pingUrl(config.publicBaseUrl, token),
    badge_url: badgeUrl(config.publicBaseUrl, monitor.badgeToken),
    created_at: monitor.createdAt.toISOString(),
    updated_at: monitor.updatedAt.toISOString(),
  };
}

export const pingQuerySchema = Joi.object({ ...pagingKeys });

/**
 * A monitor's last PINGS_KEPT pings, newest first. Older ones may still be stored until the next
 * batch prunes them; they are not listed.
 */
export async function listMonitorPings(deps: Pick<Deps, 'db'>, workspaceId: string, id: string, query: unknown): Promise<Page<MonitorPing>> {
  const q = validate<{ limit: number; offset: number }>(pingQuerySchema.prefs({ convert: true }), query);
  const monitor = await findMonitor(deps.db, workspaceId, id);
  const count = monitor.pingCount;
  const rows = await deps.db.monitorPing.findMany({
    where: { monitorId: monitor.id, seq: { gt: count - PINGS_KEPT } },
    orderBy: { seq: 'desc' },
    take: q.limit,
    skip: q.offset,
  });
  const data = rows.map((p) => ({
    kind: p.kind as MonitorPingKind,
    exit_status: p.exitStatus,
    received_at: p.receivedAt.toISOString(),
    duration_ms: p.durationMs,
    body_preview: p.bodyPreview,
    source_ip: p.sourceIp,
    user_agent: p.userAgent,
  }));
  return { data, total: Math.min(count, PINGS_KEPT), limit: q.limit, offset: q.offset };
}
