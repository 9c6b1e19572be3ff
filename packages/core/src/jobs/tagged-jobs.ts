import type { TagChange, TagCount } from '@cronsvc/contracts';
import type { Deps } from '../deps/deps.js';
import { validate } from '../validation/validate.js';
import { plannedNextRun } from './job-plan.js';
import { tagSchema } from './job-tags.js';

/**
 * Tags across a workspace (docs/JOBS-AS-CODE.md, "Tags"): how many jobs carry each, and pause or
 * resume every job with a tag in one transaction. Jobs already in the state asked for, and jobs
 * that are neither active nor paused (drafts, completed jobs), are left as they are; `changed`
 * counts the others.
 */

export async function listTags(deps: Pick<Deps, 'pool'>, workspaceId: string): Promise<TagCount[]> {
  const { rows } = await deps.pool.query<{ tag: string; jobs: number }>({
    name: 'list-tags',
    text: `SELECT t.tag, count(*)::int AS jobs FROM jobs, jsonb_array_elements_text(jobs.tags) AS t(tag)
            WHERE jobs.workspace_id = $1 GROUP BY t.tag ORDER BY t.tag`,
    values: [workspaceId],
  });
  return rows;
}

/** How many jobs of the workspace carry the tag, by state: what the console's confirmation says. */
export async function countTagged(deps: Pick<Deps, 'pool'>, workspaceId: string, tag: string): Promise<{ active: number; paused: number; total: number }> {
  const { rows } = await deps.pool.query<{ active: number; paused: number; total: number }>({
    name: 'count-tagged',
    text: `SELECT count(*) FILTER (WHERE state = 'active')::int AS active, count(*) FILTER (WHERE state = 'paused')::int AS paused, count(*)::int AS total
             FROM jobs WHERE workspace_id = $1 AND tags @> jsonb_build_array($2::text)`,
    values: [workspaceId, tag],
  });
  return rows[0];
}

const validTag = (tag: unknown) => validate<string>(tagSchema, tag, { prefix: 'tag' });

/** Pauses every active job with the tag, dropping the fires queued ahead for them, as POST /v1/jobs/:id/pause does for one. */
export async function pauseTag(deps: Pick<Deps, 'db' | 'clock'>, workspaceId: string, tag: unknown): Promise<TagChange> {
  const name = validTag(tag);
  const now = deps.clock.now();
  return deps.db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM jobs WHERE workspace_id = ${workspaceId} AND state = 'active' AND tags @> jsonb_build_array(${name}::text) FOR UPDATE`;
    const ids = rows.map((r) => r.id);
    if (ids.length > 0) {
      await tx.execution.deleteMany({ where: { jobId: { in: ids }, source: 'schedule', status: 'queued', attemptCount: 0, nextAttemptAt: { gt: now } } });
      await tx.job.updateMany({ where: { id: { in: ids } }, data: { state: 'paused', nextRunAt: null, updatedAt: now } });
    }
    return { tag: name, changed: ids.length };
  });
}

/** Resumes every paused job with the tag: each one's next run is computed from now, as POST /v1/jobs/:id/resume does for one. */
export async function resumeTag(deps: Pick<Deps, 'db' | 'clock'>, workspaceId: string, tag: unknown): Promise<TagChange> {
  const name = validTag(tag);
  const now = deps.clock.now();
  return deps.db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ id: string; kind: string; schedule: unknown }[]>`
      SELECT id, kind, schedule FROM jobs WHERE workspace_id = ${workspaceId} AND state = 'paused' AND tags @> jsonb_build_array(${name}::text) FOR UPDATE`;
    if (rows.length > 0) {
      const ids = rows.map((r) => r.id);
      const next = rows.map((r) => plannedNextRun({ kind: r.kind, state: 'active', schedule: r.schedule, scheduleAnchor: now }, now)?.toISOString() ?? null);
      await tx.$executeRaw`
        UPDATE jobs AS j SET state = 'active', schedule_anchor = ${now}, next_run_at = t.next_run_at, updated_at = ${now}
          FROM unnest(${ids}::text[], ${next}::timestamptz[]) AS t(id, next_run_at)
         WHERE j.id = t.id`;
    }
    return { tag: name, changed: rows.length };
  });
}
