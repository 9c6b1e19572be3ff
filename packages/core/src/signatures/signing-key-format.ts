import { randomBytes } from 'node:crypto';
import { decryptValue, isEncrypted, valuePlace, type ValuePlace } from '../secrets/crypto.js';

/** The Standard Webhooks secret prefix; libraries strip it and base64-decode the rest. */
export const SIGNING_KEY_PREFIX = 'whsec_';

export function generateSigningKey(): string {
  return SIGNING_KEY_PREFIX + randomBytes(32).toString('base64');
}

/** The HMAC key: the bytes behind the base64 part, as Standard Webhooks verifiers decode it. */
export function signingKeyBytes(key: string): Buffer {
  if (!key.startsWith(SIGNING_KEY_PREFIX)) throw new Error('signing key must start with whsec_');
  return Buffer.from(key.slice(SIGNING_KEY_PREFIX.length), 'base64');
}

/** A workspace's current and previous keys each open only in their own column of its row. */
export function signingKeyPlace(workspaceId: string, which: 'current' | 'previous'): ValuePlace {
  return valuePlace(which === 'current' ? 'workspaces.signing_key' : 'workspaces.previous_signing_key', workspaceId, workspaceId);
}

/** Keys stored before signing keys were encrypted are bare whsec_ values; they still count. */
export function openSigningKey(encryptionKey: Buffer, stored: string, place: ValuePlace): string {
  return isEncrypted(stored) ? decryptValue(encryptionKey, stored, place) : stored;
}
