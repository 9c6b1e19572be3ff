import { AppError } from '../errors/app-error.js';
import type { Deps } from '../runtime/deps.js';

/**
 * Deletes a secret. Jobs that still reference it fail their next attempt with SECRET_NOT_FOUND
 * (DECISIONS D5); channels, which must block the delete with 409 secret_in_use, do not exist yet.
 */
export async function deleteSecret(deps: Pick<Deps, 'db'>, workspaceId: string, id: string): Promise<void> {
  const { count } = await deps.db.secret.deleteMany({ where: { id, workspaceId } });
  if (count === 0) throw AppError.notFound('secret');
}
