import type { Actor } from '../access/actor.js';
import { writeAudit } from '../access/audit.js';
import { AppError } from '../errors/app-error.js';
import type { Deps } from '../deps/deps.js';

/**
 * Deletes a secret, unless a notification channel's credentials reference it (409
 * secret_in_use: delete or change the channel first). Jobs that still reference it fail their
 * next attempt with SECRET_NOT_FOUND instead. The secret's row is locked first, so a channel
 * saved at the same moment either is seen here or finds the secret gone.
 */
export async function deleteSecret(deps: Pick<Deps, 'db'>, workspaceId: string, id: string, actor?: Actor): Promise<void> {
  await deps.db.$transaction(async (tx) => {
    const [secret] = await tx.$queryRaw<{ name: string }[]>`SELECT name FROM secrets WHERE id = ${id} AND workspace_id = ${workspaceId} FOR UPDATE`;
    if (!secret) throw AppError.notFound('secret');
    const users = await tx.$queryRaw<{ id: string; name: string }[]>`
      SELECT id, name FROM notification_channels WHERE workspace_id = ${workspaceId} AND secret_refs ? ${secret.name} ORDER BY created_at`;
    if (users.length > 0) {
      const names = users.map((c) => `"${c.name}" (${c.id})`).join(', ');
      throw new AppError('secret_in_use', `secret "${secret.name}" is used by notification channel ${names}; delete the channel or change its config first`);
    }
    await tx.secret.delete({ where: { id } });
    await writeAudit(tx, actor, { action: 'secret.deleted', targetType: 'secret', targetId: id });
  });
}
