import type { Secret } from '@cronsvc/contracts';
import type { Secret as SecretRecord } from '../db/generated/client.js';

export type SecretRow = SecretRecord;

/** The secret as the API shows it (docs/JOBS.md, "Secrets"): never its value, not even encrypted. */
export function serializeSecret(secret: SecretRow): Secret {
  return {
    id: secret.id,
    name: secret.name,
    created_at: secret.createdAt.toISOString(),
    updated_at: secret.updatedAt.toISOString(),
  };
}
