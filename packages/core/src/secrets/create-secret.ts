import type { Actor } from '../access/actor.js';
import { withAudit } from '../access/audit.js';
import { SECRET_NAME_PATTERN } from '@cronsvc/contracts';
import Joi from 'joi';
import { Prisma } from '../db/client.js';
import { isStoredBytesError, storedBytesExceeded, storedSize } from '../db/stored-bytes.js';
import { AppError } from '../errors/app-error.js';
import { newId } from '../ids/ids.js';
import type { Deps } from '../deps/deps.js';
import { validate } from '../validation/validate.js';
import { encryptValue, valuePlace } from './crypto.js';
import { secretValueSchema } from './secret-value.js';
import type { SecretRow } from './serialize-secret.js';

export const createSecretSchema = Joi.object({
  name: Joi.string().pattern(SECRET_NAME_PATTERN).required().messages({
    'string.pattern.base': 'must start with a letter or underscore and contain only letters, digits and underscores (at most 64)',
  }),
  value: secretValueSchema.required(),
}).required();

export async function createSecret(deps: Pick<Deps, 'db' | 'clock' | 'config'>, workspaceId: string, body: unknown, actor?: Actor): Promise<SecretRow> {
  const input = validate<{ name: string; value: string }>(createSecretSchema, body);
  const now = deps.clock.now();
  const id = newId('sec');
  const value = encryptValue(deps.config.secretsEncryptionKey, input.value, valuePlace('secrets.value', workspaceId, id));
  try {
    const create = deps.db.secret.create({ data: { id, workspaceId, name: input.name, value, storedBytes: storedSize(value), createdAt: now, updatedAt: now } });
    return await withAudit(deps.db, create, actor, { action: 'secret.created', targetType: 'secret', targetId: id, changedFields: ['name', 'value'] });
  } catch (error) {
    if (isStoredBytesError(error)) throw storedBytesExceeded(deps.config.maxStoredBytesPerWorkspace);
    // The (workspace, name) unique index decides between racing creates, so no read-then-write.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      throw new AppError('conflict', `a secret named "${input.name}" already exists in this workspace`);
    }
    throw error;
  }
}
