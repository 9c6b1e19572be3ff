import type { BadgeState, Job, Monitor, ShieldsEndpoint } from '@cronsvc/contracts';
import type { Actor } from '../access/actor.js';
import { writeAudit } from '../access/audit.js';
import type { Deps } from '../deps/deps.js';
import { AppError } from '../errors/app-error.js';
import { newBadgeToken } from '../ids/ids.js';
import { findJob } from '../jobs/job-store.js';
import { serializeJob } from '../jobs/serialize-job.js';
import { findMonitor, serializeMonitor } from '../monitors/monitor-store.js';

/**
 * Status badges (docs/JOBS.md, "Badges"): every job and monitor has a public, unguessable badge
 * URL; the SVG shows its name and state, the `.json` variant is a shields.io endpoint object.
 */

export const BADGE_COLORS: Record<BadgeState, string> = {
  passing: '#2e7d32',
  up: '#2e7d32',
  failing: '#c62828',
  down: '#c62828',
  late: '#b35c00',
  paused: '#616161',
  new: '#616161',
};

/** A job as its state at a glance needs it. */
export interface JobForState {
  state: string;
  nextRunAt: Date | null;
}

/**
 * A job's state on badges and status pages: `paused` while paused; else `failing` when its last
 * ended execution failed, `late` when a fire is overdue by more than FIRE_LATE_AFTER_SECONDS,
 * `new` before any execution ended, otherwise `passing`.
 */
export function jobBadgeState(job: JobForState, lastEnded: 'succeeded' | 'failed' | null, now: Date, lateAfterMs: number): BadgeState {
  if (job.state === 'paused') return 'paused';
  if (lastEnded === 'failed') return 'failing';
  if (job.state === 'active' && job.nextRunAt !== null && now.getTime() - job.nextRunAt.getTime() > lateAfterMs) return 'late';
  return lastEnded === null ? 'new' : 'passing';
}

/** A monitor's state on badges and status pages is its own: new, up, down or paused. */
export function monitorBadgeState(state: string): BadgeState {
  return state === 'up' || state === 'down' || state === 'paused' ? state : 'new';
}

// One index range scan per job (executions by job_id, scheduled_for), newest first, to the first ended one.
const LAST_ENDED_SQL = `
  SELECT j.id AS job_id, e.status
    FROM unnest($1::text[]) AS j(id)
    CROSS JOIN LATERAL (
      SELECT status FROM executions WHERE job_id = j.id AND status IN ('succeeded', 'failed')
       ORDER BY scheduled_for DESC, id DESC LIMIT 1
    ) e`;

/** The outcome of each job's latest ended execution; jobs with none are left out. */
export async function lastEndedOutcomes(deps: Pick<Deps, 'pool'>, jobIds: readonly string[]): Promise<Map<string, 'succeeded' | 'failed'>> {
  if (jobIds.length === 0) return new Map();
  const { rows } = await deps.pool.query<{ job_id: string; status: 'succeeded' | 'failed' }>({ name: 'last-ended-outcomes', text: LAST_ENDED_SQL, values: [jobIds] });
  return new Map(rows.map((r) => [r.job_id, r.status]));
}

const NARROW = new Set('ijlt.,:;|!\'()[] ');
const WIDE = new Set('mwMW@%');

/** About how wide text is in 11 px Verdana, the badge's font. */
function textWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += NARROW.has(ch) ? 3.6 : WIDE.has(ch) ? 10 : ch >= 'A' && ch <= 'Z' ? 7.6 : 6.6;
  return Math.ceil(width);
}

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The label a badge shows: the name, cut to 40 characters. */
export function badgeLabel(name: string): string {
  const chars = [...name.replace(/[\u0000-\u001f\u007f]/g, ' ')];
  return chars.length > 40 ? `${chars.slice(0, 39).join('')}…` : chars.join('');
}

/** A flat badge, "label | state", as SVG with its accessible name. */
export function badgeSvg(label: string, state: BadgeState): string {
  const pad = 10;
  const lw = textWidth(label) + pad;
  const mw = textWidth(state) + pad;
  const w = lw + mw;
  const l = escapeXml(label);
  const name = `${l}: ${state}`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" role="img" aria-label="${name}"><title>${name}</title>` +
    `<clipPath id="r"><rect width="${w}" height="20" rx="3" fill="#fff"/></clipPath>` +
    `<g clip-path="url(#r)"><rect width="${lw}" height="20" fill="#555"/><rect x="${lw}" width="${mw}" height="20" fill="${BADGE_COLORS[state]}"/></g>` +
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">` +
    `<text x="${lw / 2}" y="14">${l}</text><text x="${lw + mw / 2}" y="14">${state}</text></g></svg>`
  );
}

/** The shields.io endpoint object of a badge (https://shields.io/badges/endpoint-badge). */
export function shieldsEndpoint(label: string, state: BadgeState): ShieldsEndpoint {
  return { schemaVersion: 1, label, message: state, color: BADGE_COLORS[state].slice(1) };
}

export const BADGE_TOKEN = /^bdg_[0-9a-f]{64}$/;

/** The label and state of the job or monitor with this badge token; null for a token no one has. */
export async function badgeByToken(deps: Pick<Deps, 'db' | 'pool' | 'clock' | 'config'>, token: string): Promise<{ label: string; state: BadgeState } | null> {
  if (!BADGE_TOKEN.test(token)) return null;
  const job = await deps.db.job.findUnique({ where: { badgeToken: token }, select: { id: true, name: true, state: true, nextRunAt: true } });
  if (job) {
    const last = (await lastEndedOutcomes(deps, [job.id])).get(job.id) ?? null;
    return { label: badgeLabel(job.name), state: jobBadgeState(job, last, deps.clock.now(), deps.config.fireLateAfterMs) };
  }
  const monitor = await deps.db.monitor.findUnique({ where: { badgeToken: token }, select: { name: true, state: true } });
  return monitor ? { label: badgeLabel(monitor.name), state: monitorBadgeState(monitor.state) } : null;
}

/** Whether a badge token belongs to a job or monitor, for the public rate limit's count. */
export async function badgeTokenKnown(deps: Pick<Deps, 'pool'>, token: string): Promise<boolean> {
  if (!BADGE_TOKEN.test(token)) return false;
  const { rows } = await deps.pool.query({
    name: 'badge-token-known',
    text: 'SELECT 1 FROM jobs WHERE badge_token = $1 UNION ALL SELECT 1 FROM monitors WHERE badge_token = $1 LIMIT 1',
    values: [token],
  });
  return rows.length > 0;
}

/** POST /v1/jobs/:id/badge/rotate: a new badge token; the old URL answers 404 from now on. */
export async function rotateJobBadge(deps: Pick<Deps, 'db' | 'config'>, workspaceId: string, id: string, actor?: Actor): Promise<Job> {
  await deps.db.$transaction(async (tx) => {
    const { count } = await tx.job.updateMany({ where: { id, workspaceId }, data: { badgeToken: newBadgeToken() } });
    if (count === 0) throw AppError.notFound('job');
    await writeAudit(tx, actor, { action: 'job.badge_rotated', targetType: 'job', targetId: id, changedFields: ['badge_url'] });
  });
  return serializeJob(await findJob(deps.db, workspaceId, id), deps.config);
}

/** POST /v1/monitors/:id/badge/rotate: as rotateJobBadge, for a monitor. */
export async function rotateMonitorBadge(deps: Pick<Deps, 'db' | 'config'>, workspaceId: string, id: string, actor?: Actor): Promise<Monitor> {
  await deps.db.$transaction(async (tx) => {
    const { count } = await tx.monitor.updateMany({ where: { id, workspaceId }, data: { badgeToken: newBadgeToken() } });
    if (count === 0) throw AppError.notFound('monitor');
    await writeAudit(tx, actor, { action: 'monitor.badge_rotated', targetType: 'monitor', targetId: id, changedFields: ['badge_url'] });
  });
  return serializeMonitor(await findMonitor(deps.db, workspaceId, id), deps.config);
}
