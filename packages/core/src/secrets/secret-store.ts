import Joi from 'joi';
import { AppError } from '../errors/app-error.js';
import { pagingKeys, type Page } from '../lists/paging.js';
import type { Deps } from '../deps/deps.js';
import { validate } from '../validation/validate.js';
import type { SecretRow } from './serialize-secret.js';

const querySchema = Joi.object(pagingKeys);

export async function findSecret(deps: Pick<Deps, 'db'>, workspaceId: string, id: string): Promise<SecretRow> {
  const secret = await deps.db.secret.findFirst({ where: { id, workspaceId } });
  if (!secret) throw AppError.notFound('secret');
  return secret;
}

/** Ordered by name, which is unique in a workspace, so pages never overlap. */
export async function listSecrets(deps: Pick<Deps, 'db'>, workspaceId: string, query: unknown): Promise<Page<SecretRow>> {
  const q = validate<{ limit: number; offset: number }>(querySchema.prefs({ convert: true }), query);
  const where = { workspaceId };
  const [data, total] = await Promise.all([
    deps.db.secret.findMany({ where, orderBy: { name: 'asc' }, take: q.limit, skip: q.offset }),
    deps.db.secret.count({ where }),
  ]);
  return { data, total, limit: q.limit, offset: q.offset };
}
