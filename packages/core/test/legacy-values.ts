import { createCipheriv, createHmac, randomBytes } from 'node:crypto';

/**
 * Stored values in the forms written before values were bound to their rows, for tests of what
 * still reads them and of the start-up rewrite: `enc1:` (AES-256-GCM under SECRETS_ENCRYPTION_KEY
 * itself, no associated data) and a webhook secret's HMAC under that same key.
 */
export function legacyEncrypted(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `enc1:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
}

export function legacyWebhookSecretHash(key: Buffer, secret: string): string {
  return createHmac('sha256', key).update(`webhook-secret:${secret}`).digest('hex');
}
