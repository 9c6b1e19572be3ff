import type { PublicStatusPage, StatusDayState, StatusPage, StatusPageInput, StatusPageItem } from '@cronsvc/contracts';
import Joi from 'joi';
import type { Actor } from '../access/actor.js';
import { fieldsOf, withAudit, writeAudit } from '../access/audit.js';
import type { StatusPage as StatusPageRow } from '../db/generated/client.js';
import type { Deps } from '../deps/deps.js';
import { AppError } from '../errors/app-error.js';
import { newId, newStatusPageToken } from '../ids/ids.js';
import { pagingKeys, type Page } from '../lists/paging.js';
import { validate } from '../validation/validate.js';
import { jobBadgeState, lastEndedOutcomes, monitorBadgeState } from './badges.js';
import { monitorDays, type UpDown } from './monitor-days.js';

/**
 * Public status pages (docs/API.md, "Status pages"): a name and chosen jobs and monitors, shown at an
 * unguessable public URL with each item's name, state and 90 daily bars, and nothing else of the
 * workspace.
 */

export const MAX_STATUS_PAGE_ITEMS = 50;
export const STATUS_DAYS = 90;
const DAY_MS = 86_400_000;

const ids = (prefix: string) => Joi.array().items(Joi.string().pattern(new RegExp(`^${prefix}_[A-Za-z0-9_-]{1,60}$`))).max(MAX_STATUS_PAGE_ITEMS).unique();
const fields = { name: Joi.string().trim().min(1).max(100), job_ids: ids('job'), monitor_ids: ids('mon') };
export const createSchema = Joi.object({ ...fields, name: fields.name.required() });
export const patchSchema = Joi.object(fields).min(1);
export const querySchema = Joi.object(pagingKeys);

export const statusPageUrl = (base: string, token: string) => `${base}/v1/status/${token}`;

export function serializeStatusPage(row: StatusPageRow, config: Pick<Deps['config'], 'publicBaseUrl'>): StatusPage {
  return {
    id: row.id,
    name: row.name,
    job_ids: row.jobIds as string[],
    monitor_ids: row.monitorIds as string[],
    public_url: statusPageUrl(config.publicBaseUrl, row.token),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Every id given names a job or monitor of the workspace; else 400 naming the first one that does not. */
async function checkItems(deps: Pick<Deps, 'db'>, workspaceId: string, input: { job_ids?: string[]; monitor_ids?: string[] }): Promise<void> {
  const details: { path: string; message: string }[] = [];
  if (input.job_ids?.length) {
    const found = new Set((await deps.db.job.findMany({ where: { workspaceId, id: { in: input.job_ids } }, select: { id: true } })).map((j) => j.id));
    input.job_ids.forEach((id, i) => found.has(id) || details.push({ path: `job_ids[${i}]`, message: `no job ${id} in this workspace` }));
  }
  if (input.monitor_ids?.length) {
    const found = new Set((await deps.db.monitor.findMany({ where: { workspaceId, id: { in: input.monitor_ids } }, select: { id: true } })).map((m) => m.id));
    input.monitor_ids.forEach((id, i) => found.has(id) || details.push({ path: `monitor_ids[${i}]`, message: `no monitor ${id} in this workspace` }));
  }
  if (details.length > 0) throw AppError.validation(details);
}

export async function createStatusPage(deps: Pick<Deps, 'db' | 'clock'>, workspaceId: string, body: unknown, actor?: Actor): Promise<StatusPageRow> {
  const input = validate<StatusPageInput>(createSchema, body);
  await checkItems(deps, workspaceId, input);
  const now = deps.clock.now();
  const id = newId('stp');
  const create = deps.db.statusPage.create({
    data: { id, workspaceId, name: input.name, token: newStatusPageToken(), jobIds: input.job_ids ?? [], monitorIds: input.monitor_ids ?? [], createdAt: now, updatedAt: now },
  });
  return withAudit(deps.db, create, actor, { action: 'status_page.created', targetType: 'status_page', targetId: id, changedFields: fieldsOf(body) });
}

export async function findStatusPage(deps: Pick<Deps, 'db'>, workspaceId: string, id: string): Promise<StatusPageRow> {
  const row = await deps.db.statusPage.findFirst({ where: { id, workspaceId } });
  if (!row) throw AppError.notFound('status page');
  return row;
}

export async function listStatusPages(deps: Pick<Deps, 'db'>, workspaceId: string, query: unknown): Promise<Page<StatusPageRow>> {
  const q = validate<{ limit: number; offset: number }>(querySchema.prefs({ convert: true }), query);
  const where = { workspaceId };
  const [data, total] = await Promise.all([
    deps.db.statusPage.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: q.limit, skip: q.offset }),
    deps.db.statusPage.count({ where }),
  ]);
  return { data, total, limit: q.limit, offset: q.offset };
}

export async function updateStatusPage(deps: Pick<Deps, 'db'>, workspaceId: string, id: string, body: unknown, actor?: Actor): Promise<StatusPageRow> {
  const input = validate<Partial<StatusPageInput>>(patchSchema, body);
  await findStatusPage(deps, workspaceId, id);
  await checkItems(deps, workspaceId, input);
  const update = deps.db.statusPage.update({
    where: { id },
    data: { ...(input.name !== undefined ? { name: input.name } : {}), ...(input.job_ids ? { jobIds: input.job_ids } : {}), ...(input.monitor_ids ? { monitorIds: input.monitor_ids } : {}) },
  });
  return withAudit(deps.db, update, actor, { action: 'status_page.updated', targetType: 'status_page', targetId: id, changedFields: fieldsOf(body) });
}

export async function deleteStatusPage(deps: Pick<Deps, 'db'>, workspaceId: string, id: string, actor?: Actor): Promise<void> {
  await deps.db.$transaction(async (tx) => {
    const { count } = await tx.statusPage.deleteMany({ where: { id, workspaceId } });
    if (count === 0) throw AppError.notFound('status page');
    await writeAudit(tx, actor, { action: 'status_page.deleted', targetType: 'status_page', targetId: id });
  });
}

/** The 90 UTC dates a page shows, oldest first, today last. */
export function statusDates(now: Date): string[] {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  return Array.from({ length: STATUS_DAYS }, (_, i) => new Date(today - (STATUS_DAYS - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

/** A job's bars from its daily counts: failing on a day with a failure, passing with only successes, none without executions. */
export function jobDays(dates: readonly string[], perDay: ReadonlyMap<string, { executions: number; failed: number }>): { days: StatusPageItem['days']; uptime: number | null } {
  let executions = 0;
  let failed = 0;
  const days = dates.map((date) => {
    const day = perDay.get(date);
    if (!day || day.executions === 0) return { date, state: 'none' as StatusDayState };
    executions += day.executions;
    failed += day.failed;
    return { date, state: (day.failed > 0 ? 'failing' : 'passing') as StatusDayState };
  });
  return { days, uptime: executions === 0 ? null : (executions - failed) / executions };
}

const DAILY_SQL = `
  SELECT job_id, to_char(hour AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, sum(executions)::int AS executions, sum(failed)::int AS failed
    FROM job_stats_hourly WHERE job_id = ANY($1::text[]) AND hour >= $2
   GROUP BY 1, 2`;

// A monitor's time up and down per day, kept as its state changes (docs/MONITORS.md, "State history").
const MONITOR_DAILY_SQL = `
  SELECT monitor_id, to_char(day AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, up_ms::float8 AS up_ms, down_ms::float8 AS down_ms
    FROM monitor_state_days WHERE monitor_id = ANY($1::text[]) AND day >= $2`;

/** Rows of one key per item: job or monitor id -> date -> what that day holds. */
function byItem<R extends { day: string }>(rows: readonly R[], idOf: (row: R) => string): Map<string, Map<string, R>> {
  const out = new Map<string, Map<string, R>>();
  for (const row of rows) {
    if (!out.has(idOf(row))) out.set(idOf(row), new Map());
    out.get(idOf(row))!.set(row.day, row);
  }
  return out;
}

/**
 * What the public URL shows: the page's name and, for each chosen job and monitor still there, its
 * name, state, uptime and days. Null for a token no page has.
 */
export async function publicStatusPage(deps: Pick<Deps, 'db' | 'pool' | 'clock' | 'config'>, token: string): Promise<PublicStatusPage | null> {
  if (!/^sts_[0-9a-f]{64}$/.test(token)) return null;
  const page = await deps.db.statusPage.findUnique({ where: { token } });
  if (!page) return null;
  const now = deps.clock.now();
  const dates = statusDates(now);
  const jobIdsChosen = page.jobIds as string[];
  const monitorIdsChosen = page.monitorIds as string[];
  const since = new Date(`${dates[0]}T00:00:00Z`);
  const [jobs, monitors] = await Promise.all([
    deps.db.job.findMany({ where: { workspaceId: page.workspaceId, id: { in: jobIdsChosen } }, select: { id: true, name: true, state: true, nextRunAt: true } }),
    deps.db.monitor.findMany({ where: { workspaceId: page.workspaceId, id: { in: monitorIdsChosen } }, select: { id: true, name: true, state: true, stateSince: true } }),
  ]);
  const jobIds = jobs.map((j) => j.id);
  const monitorIds = monitors.map((m) => m.id);
  const [last, daily, monitorDaily] = await Promise.all([
    lastEndedOutcomes(deps, jobIds),
    jobIds.length === 0 ? { rows: [] } : deps.pool.query<{ job_id: string; day: string; executions: number; failed: number }>(DAILY_SQL, [jobIds, since]),
    monitorIds.length === 0 ? { rows: [] } : deps.pool.query<{ monitor_id: string; day: string; up_ms: number; down_ms: number }>(MONITOR_DAILY_SQL, [monitorIds, since]),
  ]);
  const perJob = byItem(daily.rows, (r) => r.job_id);
  const perMonitor = byItem(monitorDaily.rows, (r) => r.monitor_id);
  const byJob = new Map(jobs.map((j) => [j.id, j]));
  const byMonitor = new Map(monitors.map((m) => [m.id, m]));
  const items: StatusPageItem[] = [];
  for (const id of jobIdsChosen) {
    const job = byJob.get(id);
    if (!job) continue;
    const { days, uptime } = jobDays(dates, perJob.get(id) ?? new Map());
    items.push({ name: job.name, state: jobBadgeState(job, last.get(id) ?? null, now, deps.config.fireLateAfterMs), uptime_90d: uptime, days });
  }
  for (const id of monitorIdsChosen) {
    const monitor = byMonitor.get(id);
    if (!monitor) continue;
    const stored = new Map<string, UpDown>([...(perMonitor.get(id) ?? [])].map(([date, r]) => [date, { upMs: r.up_ms, downMs: r.down_ms }]));
    const { days, uptime } = monitorDays(dates, stored, { state: monitor.state, since: monitor.stateSince }, now);
    items.push({ name: monitor.name, state: monitorBadgeState(monitor.state), uptime_90d: uptime, days });
  }
  return { name: page.name, updated_at: now.toISOString(), items };
}

/** Whether a status page token is known, for the public rate limit's count. */
export async function statusPageTokenKnown(deps: Pick<Deps, 'pool'>, token: string): Promise<boolean> {
  if (!/^sts_[0-9a-f]{64}$/.test(token)) return false;
  const { rows } = await deps.pool.query({ name: 'status-page-token-known', text: 'SELECT 1 FROM status_pages WHERE token = $1', values: [token] });
  return rows.length > 0;
}
