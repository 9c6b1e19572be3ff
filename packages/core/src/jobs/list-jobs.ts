import Joi from 'joi';
import type { JobRow, Prisma } from '../db/client.js';
import type { Deps } from '../deps/deps.js';
import { pagingKeys, type Page } from '../lists/paging.js';
import { validate } from '../validation/validate.js';
import { JOB_KINDS, JOB_STATES } from '@cronsvc/contracts';
import { MAX_TAGS_PER_JOB, tagSchema } from './job-tags.js';

export const querySchema = Joi.object({
  state: Joi.string().valid(...JOB_STATES),
  kind: Joi.string().valid(...JOB_KINDS),
  name: Joi.string().max(200),
  tag: Joi.alternatives(tagSchema, Joi.array().items(tagSchema).max(MAX_TAGS_PER_JOB)).description('Repeatable: a job must have every tag given.'),
  ...pagingKeys,
});

interface JobQuery {
  state?: string;
  kind?: string;
  name?: string;
  tag?: string | string[];
  limit: number;
  offset: number;
}

/** A job as a list reads it: without its request and steps, which a page never needs (see `summary`). */
export type ListedJob = Omit<JobRow, 'request' | 'steps'>;

/**
 * A page of jobs. It selects no request or steps: once a job's definition is large Postgres keeps
 * it out of line, and a page that does not ask for it never reads it, so a page of a hundred jobs
 * of 1 MiB each costs what a page of small ones does (docs/API.md, "Lists").
 */
export async function listJobs(deps: Pick<Deps, 'db'>, workspaceId: string, query: unknown): Promise<Page<ListedJob>> {
  const q = validate<JobQuery>(querySchema.prefs({ convert: true }), query);
  const where: Prisma.JobWhereInput = {
    workspaceId,
    ...(q.state ? { state: q.state } : {}),
    ...(q.kind ? { kind: q.kind } : {}),
    ...(q.name ? { name: { contains: q.name, mode: 'insensitive' } } : {}),
    ...(q.tag !== undefined ? { tags: { array_contains: [q.tag].flat() } } : {}),
  };
  const [data, total] = await Promise.all([
    deps.db.job.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: q.limit, skip: q.offset, omit: { request: true, steps: true } }),
    deps.db.job.count({ where }),
  ]);
  return { data, total, limit: q.limit, offset: q.offset };
}
