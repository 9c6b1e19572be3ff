import Joi from 'joi';
import type { JobRow, Prisma } from '../db/client.js';
import type { Deps } from '../deps/deps.js';
import { pagingKeys, type Page } from '../lists/paging.js';
import { validate } from '../validation/validate.js';
import { JOB_KINDS, JOB_STATES } from '@cronsvc/contracts';

export const querySchema = Joi.object({
  state: Joi.string().valid(...JOB_STATES),
  kind: Joi.string().valid(...JOB_KINDS),
  name: Joi.string().max(200),
  ...pagingKeys,
});

interface JobQuery {
  state?: string;
  kind?: string;
  name?: string;
  limit: number;
  offset: number;
}

export async function listJobs(deps: Pick<Deps, 'db'>, workspaceId: string, query: unknown): Promise<Page<JobRow>> {
  const q = validate<JobQuery>(querySchema.prefs({ convert: true }), query);
  const where: Prisma.JobWhereInput = {
    workspaceId,
    ...(q.state ? { state: q.state } : {}),
    ...(q.kind ? { kind: q.kind } : {}),
    ...(q.name ? { name: { contains: q.name, mode: 'insensitive' } } : {}),
  };
  const [data, total] = await Promise.all([
    deps.db.job.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: q.limit, skip: q.offset }),
    deps.db.job.count({ where }),
  ]);
  return { data, total, limit: q.limit, offset: q.offset };
}
