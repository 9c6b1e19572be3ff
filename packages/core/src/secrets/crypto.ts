import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Values encrypted at rest under SECRETS_ENCRYPTION_KEY (AES-256-GCM, a fresh IV per value).
 *
 * `enc2:` + base64(iv | tag | ciphertext), under a key derived from SECRETS_ENCRYPTION_KEY with
 * HKDF for this one purpose, and with associated data naming the value's place: its table,
 * column, workspace and row. A ciphertext copied into another row, column or workspace fails
 * the tag check there instead of opening as that row's value.
 *
 * `enc1:` values (written before, under SECRETS_ENCRYPTION_KEY itself and bound to nothing) still
 * open; start-up rewrites them as `enc2:` (see upgrade-stored-values.ts).
 */

const V1 = 'enc1:';
const V2 = 'enc2:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The columns that hold encrypted values; part of each value's associated data. */
export type EncryptedColumn =
  | 'secrets.value'
  | 'notification_channels.credentials'
  | 'jobs.webhook_token'
  | 'workspaces.signing_key'
  | 'workspaces.previous_signing_key'
  | 'monitors.ping_token';

/** Where a stored value belongs: it opens only there. */
export interface ValuePlace {
  column: EncryptedColumn;
  workspaceId: string;
  /** The id of the row holding the value (a workspace's own id for its signing keys). */
  rowId: string;
}

export const valuePlace = (column: EncryptedColumn, workspaceId: string, rowId: string): ValuePlace => ({ column, workspaceId, rowId });

const associatedData = (place: ValuePlace) => Buffer.from(`${place.column}:${place.workspaceId}:${place.rowId}`, 'utf8');

/** Subkeys of SECRETS_ENCRYPTION_KEY, one per use, so no key serves both as a cipher key and a MAC key. */
export interface DerivedKeys {
  /** AES-256-GCM key of `enc2:` values. */
  encryption: Buffer;
  /** HMAC-SHA256 key of webhook-trigger secrets. */
  webhookSecretMac: Buffer;
  /** HMAC-SHA256 key of notification channels' destination keys (which cover credentials). */
  channelDestinationMac: Buffer;
}

const derive = (key: Buffer, info: string) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `cronsvc ${info}`, 32));

// A process has one key; deriving once per key keeps every encryption and check free of HKDF.
const derived = new WeakMap<Buffer, DerivedKeys>();

export function derivedKeys(key: Buffer): DerivedKeys {
  let keys = derived.get(key);
  if (!keys) {
    keys = {
      encryption: derive(key, 'value encryption v2'),
      webhookSecretMac: derive(key, 'webhook secret mac v2'),
      channelDestinationMac: derive(key, 'channel destination mac v1'),
    };
    derived.set(key, keys);
  }
  return keys;
}

export function encryptValue(key: Buffer, plaintext: string, place: ValuePlace): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', derivedKeys(key).encryption, iv);
  cipher.setAAD(associatedData(place));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return V2 + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

export class DecryptionError extends Error {}

/** Reverses encryptValue; a wrong key, altered data or another place than the value's fails the GCM tag check. */
export function decryptValue(key: Buffer, stored: string, place: ValuePlace): string {
  const current = stored.startsWith(V2);
  if (!current && !stored.startsWith(V1)) throw new DecryptionError('value is not encrypted');
  const raw = Buffer.from(stored.slice(V2.length), 'base64');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new DecryptionError('encrypted value is truncated');
  const decipher = createDecipheriv('aes-256-gcm', current ? derivedKeys(key).encryption : key, raw.subarray(0, IV_BYTES));
  if (current) decipher.setAAD(associatedData(place));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new DecryptionError('value cannot be decrypted with SECRETS_ENCRYPTION_KEY here (wrong key, altered data, or a value moved from another row)');
  }
}

/** The plaintext's length in bytes, read from the stored form without decrypting (GCM adds no padding). */
export function storedValueBytes(stored: string): number {
  if (!isEncrypted(stored)) return Buffer.byteLength(stored, 'utf8');
  return Math.max(0, Buffer.byteLength(stored.slice(V2.length), 'base64') - IV_BYTES - TAG_BYTES);
}

export function isEncrypted(stored: string): boolean {
  return stored.startsWith(V2) || stored.startsWith(V1);
}

/** Whether the value is in the current format (else start-up rewrites it). */
export function isCurrentFormat(stored: string): boolean {
  return stored.startsWith(V2);
}

/** The first characters of every value start-up must rewrite as `enc2:` (for SQL LIKE). */
export const LEGACY_PREFIX = V1;
