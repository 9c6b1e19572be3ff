import type { Secret } from '../db/generated/client.js';

export type SecretRow = Secret;

/** The secret as the API shows it (DECISIONS D5): never its value, not even encrypted. */
export function serializeSecret(secret: SecretRow): { id: string; name: string; created_at: string; updated_at: string } {
  return {
    id: secret.id,
    name: secret.name,
    created_at: secret.createdAt.toISOString(),
    updated_at: secret.updatedAt.toISOString(),
  };
}
