import type { ApiToken, ApiTokenCreated, TokenScope } from '@cronsvc/contracts';
import Joi from 'joi';
import { SCOPES, type Actor } from '../access/actor.js';
import { writeAudit } from '../access/audit.js';
import type { Db } from '../db/client.js';
import type { Deps } from '../deps/deps.js';
import { AppError } from '../errors/app-error.js';
import { hashToken, newId, newToken } from '../ids/ids.js';
import { pagingKeys, type Page } from '../lists/paging.js';
import { validate } from '../validation/validate.js';

export const API_TOKEN_PREFIX = 'csk_';
/** How much of a token a list shows, to recognise it: `csk_` and 8 characters of its 256 random bits. */
const SHOWN_PREFIX_LENGTH = 12;

export const createTokenSchema = Joi.object({
  name: Joi.string().trim().min(1).max(200),
  scope: Joi.string().valid(...SCOPES).default('full'),
  expires_at: Joi.date().iso().prefs({ convert: true }),
});

interface TokenInput {
  name?: string;
  scope: TokenScope;
  expires_at?: Date;
}

type TokenRow = NonNullable<Awaited<ReturnType<Db['apiToken']['findFirst']>>>;
type TokenWriter = Pick<Db, 'apiToken' | 'auditEvent'>;

/** Stores a new token of the workspace and returns it, shown this once; its event goes in the same transaction. */
export async function issueToken(tx: TokenWriter, workspaceId: string, input: TokenInput, actor?: Actor, token = newToken(API_TOKEN_PREFIX)): Promise<ApiTokenCreated> {
  const id = newId('tok');
  const row = await tx.apiToken.create({
    data: { id, workspaceId, tokenHash: hashToken(token), name: input.name ?? null, scope: input.scope, prefix: token.slice(0, SHOWN_PREFIX_LENGTH), expiresAt: input.expires_at ?? null },
  });
  await writeAudit(tx, actor && { ...actor, workspaceId }, { action: 'token.created', targetType: 'token', targetId: id, changedFields: Object.keys(input).sort() });
  return { id, name: row.name, scope: row.scope as TokenScope, expires_at: row.expiresAt?.toISOString() ?? null, api_token: token, created_at: row.createdAt.toISOString() };
}

/**
 * A new API token of a workspace (POST /v1/tokens, POST /admin/v1/workspaces/:id/tokens): `{name?,
 * scope?, expires_at?}`; an expiry must be in the future.
 */
export async function createApiToken(deps: Pick<Deps, 'db' | 'clock'>, workspaceId: string, body: unknown = {}, actor?: Actor): Promise<ApiTokenCreated> {
  const input = validate<TokenInput>(createTokenSchema, body ?? {});
  if (input.expires_at && input.expires_at <= deps.clock.now()) throw AppError.validation([{ path: 'expires_at', message: 'must be in the future' }]);
  return deps.db.$transaction(async (tx) => {
    const workspace = await tx.workspace.findUnique({ where: { id: workspaceId }, select: { id: true } });
    if (!workspace) throw AppError.notFound('workspace');
    return issueToken(tx, workspaceId, input, actor);
  });
}

/**
 * Deletes a token: requests with it are refused at once, and the console sessions opened with it
 * end (they go with it). `workspaceId` limits it to one workspace (the API's); the admin API
 * deletes any, and its actor is made for the token's workspace.
 */
export async function revokeApiToken(
  deps: Pick<Deps, 'db'>, tokenId: string, options: { workspaceId?: string; actor?: Actor | ((workspaceId: string) => Actor) } = {},
): Promise<void> {
  await deps.db.$transaction(async (tx) => {
    const token = await tx.apiToken.findFirst({ where: { id: tokenId, ...(options.workspaceId ? { workspaceId: options.workspaceId } : {}) }, select: { id: true, workspaceId: true } });
    if (!token) throw AppError.notFound('token');
    await tx.apiToken.delete({ where: { id: token.id } });
    const actor = typeof options.actor === 'function' ? options.actor(token.workspaceId) : options.actor;
    await writeAudit(tx, actor, { action: 'token.deleted', targetType: 'token', targetId: token.id });
  });
}

const listSchema = Joi.object(pagingKeys);

/** Every token of the workspace, newest first; never the token itself. */
export async function listApiTokens(deps: Pick<Deps, 'db'>, workspaceId: string, query: unknown): Promise<Page<TokenRow>> {
  const q = validate<{ limit: number; offset: number }>(listSchema.prefs({ convert: true }), query);
  const where = { workspaceId };
  const [data, total] = await Promise.all([
    deps.db.apiToken.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: q.limit, skip: q.offset }),
    deps.db.apiToken.count({ where }),
  ]);
  return { data, total, limit: q.limit, offset: q.offset };
}

export function serializeApiToken(t: TokenRow): ApiToken {
  return {
    id: t.id,
    name: t.name,
    scope: t.scope as TokenScope,
    prefix: t.prefix,
    created_at: t.createdAt.toISOString(),
    last_used_at: t.lastUsedAt?.toISOString() ?? null,
    expires_at: t.expiresAt?.toISOString() ?? null,
  };
}
