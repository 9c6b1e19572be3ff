import type { Actor } from '../access/actor.js';
import { withAudit } from '../access/audit.js';
import Joi from 'joi';
import { Prisma } from '../db/client.js';
import { isStoredBytesError, storedBytesExceeded, storedSize } from '../db/stored-bytes.js';
import { AppError } from '../errors/app-error.js';
import type { Deps } from '../deps/deps.js';
import { validate } from '../validation/validate.js';
import { encryptValue, valuePlace } from './crypto.js';
import { secretValueSchema } from './secret-value.js';
import type { SecretRow } from './serialize-secret.js';

// Only the value changes: jobs and channels refer to a secret by name, so a rename would break them.
export const updateSecretSchema = Joi.object({ value: secretValueSchema.required() }).required();

export async function updateSecret(deps: Pick<Deps, 'db' | 'clock' | 'config'>, workspaceId: string, id: string, body: unknown, actor?: Actor): Promise<SecretRow> {
  const input = validate<{ value: string }>(updateSecretSchema, body);
  const value = encryptValue(deps.config.secretsEncryptionKey, input.value, valuePlace('secrets.value', workspaceId, id));
  try {
    const update = deps.db.secret.update({ where: { id, workspaceId }, data: { value, storedBytes: storedSize(value), updatedAt: deps.clock.now() } });
    return await withAudit(deps.db, update, actor, { action: 'secret.updated', targetType: 'secret', targetId: id, changedFields: ['value'] });
  } catch (error) {
    if (isStoredBytesError(error)) throw storedBytesExceeded(deps.config.maxStoredBytesPerWorkspace);
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2025') throw AppError.notFound('secret');
    throw error;
  }
}
