import type { WorkspaceCreated, WorkspaceInput } from '@cronsvc/contracts';
import { createHash, timingSafeEqual } from 'node:crypto';
import Joi from 'joi';
import type { Actor } from '../access/actor.js';
import { writeAudit } from '../access/audit.js';
import { inTransaction, type Db, type SqlPool } from '../db/client.js';
import { hashToken, newId } from '../ids/ids.js';
import { encryptValue } from '../secrets/crypto.js';
import { generateSigningKey, signingKeyPlace } from '../signatures/signing-key-format.js';
import { validate } from '../validation/validate.js';
import { issueToken } from './tokens.js';

/** Encrypted at rest like secrets: the key is what lets anyone forge our requests. */
function newStoredSigningKey(encryptionKey: Buffer, workspaceId: string): string {
  return encryptValue(encryptionKey, generateSigningKey(), signingKeyPlace(workspaceId, 'current'));
}

export const createWorkspaceSchema = Joi.object({ name: Joi.string().trim().min(1).max(200).required() });

/**
 * A new workspace and its first token (POST /admin/v1/workspaces). `actorFor` makes the actor of
 * the new workspace (the admin API's): its `workspace.created` and `token.created` events go in
 * the same transaction.
 */
export async function createWorkspace(db: Db, encryptionKey: Buffer, body: unknown, actorFor?: (workspaceId: string) => Actor): Promise<WorkspaceCreated> {
  const { name } = validate<WorkspaceInput>(createWorkspaceSchema, body);
  const id = newId('wsp');
  const actor = actorFor?.(id);
  const { workspace, token } = await db.$transaction(async (tx) => {
    const created = await tx.workspace.create({ data: { id, name, signingKey: newStoredSigningKey(encryptionKey, id) } });
    await writeAudit(tx, actor, { action: 'workspace.created', targetType: 'workspace', targetId: id, changedFields: ['name'] });
    return { workspace: created, token: await issueToken(tx, created.id, { scope: 'full' }, actor) };
  });
  return { id: workspace.id, name: workspace.name, api_token: token.api_token, created_at: workspace.createdAt.toISOString(), updated_at: workspace.updatedAt.toISOString() };
}

/**
 * Makes sure workspace `default` exists and accepts `token` (BOOTSTRAP_API_TOKEN,
 * docs/CONFIGURATION.md), a token marked as the bootstrap's, which revokeBootstrapTokens revokes
 * once the setting goes.
 */
export async function ensureBootstrapWorkspace(db: Db, encryptionKey: Buffer, token: string): Promise<string> {
  const tokenHash = hashToken(token);
  // Every app runs this at start-up, often at the same moment: the lock makes them take turns,
  // so there is one default workspace and one token row.
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${BOOTSTRAP_LOCK_KEY})`;
    const known = await tx.apiToken.findUnique({ where: { tokenHash } });
    if (known) {
      // Bootstrapped before tokens were marked.
      if (!known.fromBootstrap) await tx.apiToken.update({ where: { id: known.id }, data: { fromBootstrap: true } });
      return known.workspaceId;
    }
    const id = newId('wsp');
    const workspace =
      (await tx.workspace.findFirst({ where: { name: 'default' }, orderBy: { createdAt: 'asc' } })) ??
      (await tx.workspace.create({ data: { id, name: 'default', signingKey: newStoredSigningKey(encryptionKey, id) } }));
    await tx.apiToken.create({ data: { id: newId('tok'), workspaceId: workspace.id, tokenHash, fromBootstrap: true } });
    return workspace.id;
  });
}

/**
 * Revokes the tokens BOOTSTRAP_API_TOKEN made, but for `keep` (the current setting, if any), so
 * that a well-known development token does not outlive the start that set it. Answers the ids of
 * the revoked tokens; their console sessions end with them.
 */
export async function revokeBootstrapTokens(pool: SqlPool, keep: string | undefined): Promise<string[]> {
  const kept = keep === undefined ? null : hashToken(keep);
  // Plain SQL: every API start runs this, and Prisma would load its query compiler for it.
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [BOOTSTRAP_LOCK_KEY]);
    const { rows } = await client.query<{ id: string }>('DELETE FROM api_tokens WHERE from_bootstrap AND ($1::text IS NULL OR token_hash <> $1::text) RETURNING id', [kept]);
    return rows.map((r) => r.id);
  });
}

// Any constant; it only has to be the same in every process.
const BOOTSTRAP_LOCK_KEY = 72707370;

/** Constant-time comparison of two secrets of any length. */
export function secretsEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}
