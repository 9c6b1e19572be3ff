import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const PREFIX = 'enc1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** AES-256-GCM under SECRETS_ENCRYPTION_KEY: "enc1:" + base64(iv | tag | ciphertext). */
export function encryptValue(key: Buffer, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

export class DecryptionError extends Error {}

/** Reverses encryptValue; a wrong key or altered ciphertext fails the GCM tag check. */
export function decryptValue(key: Buffer, stored: string): string {
  if (!isEncrypted(stored)) throw new DecryptionError('value is not encrypted');
  const raw = Buffer.from(stored.slice(PREFIX.length), 'base64');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new DecryptionError('encrypted value is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new DecryptionError('value cannot be decrypted with SECRETS_ENCRYPTION_KEY (wrong key or altered data)');
  }
}

/** The plaintext's length in bytes, read from the stored form without decrypting (GCM adds no padding). */
export function storedValueBytes(stored: string): number {
  if (!isEncrypted(stored)) return Buffer.byteLength(stored, 'utf8');
  return Math.max(0, Buffer.byteLength(stored.slice(PREFIX.length), 'base64') - IV_BYTES - TAG_BYTES);
}

export function isEncrypted(stored: string): boolean {
  return stored.startsWith(PREFIX);
}
