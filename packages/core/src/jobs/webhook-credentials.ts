import { createHmac, timingSafeEqual } from 'node:crypto';
import type { JobRow } from '../db/client.js';
import { newToken } from '../ids/ids.js';
import type { JobInput } from './job-schema.js';
import { decryptValue, DecryptionError, derivedKeys, encryptValue, valuePlace } from '../secrets/crypto.js';
import { hashToken } from '../ids/ids.js';

/**
 * Credentials of webhook_trigger jobs (docs/WORKFLOWS.md, "Webhook triggers"). The trigger token is a bearer
 * credential shown on every read of the job, so it is stored encrypted, with its SHA-256 beside it
 * for lookups: an inbound call is found by the hash of its token under a unique index, never by
 * comparing tokens. The shared secret is write-only: only its HMAC is stored, and checked in
 * constant time.
 */

type WebhookColumns = Pick<JobRow, 'webhookToken' | 'webhookTokenHash' | 'webhookSecretHash'>;

/** The job a token belongs to: its ciphertext opens only in this row. */
export type WebhookOwner = Pick<JobRow, 'id' | 'workspaceId'>;

export const TRIGGER_TOKEN_PREFIX = 'trg_';

const tokenPlace = (job: WebhookOwner) => valuePlace('jobs.webhook_token', job.workspaceId, job.id);

// The secret's HMAC is versioned: `v2:` under a key derived for this purpose alone; a bare hex
// digest is the first version, made under SECRETS_ENCRYPTION_KEY itself, and still checks until
// the secret is next set (or is rewritten after a call that matched it, see needsRehash).
const HASH_V2 = 'v2:';

const hmac = (key: Buffer, secret: string) => createHmac('sha256', key).update(`webhook-secret:${secret}`).digest('hex');

export function webhookSecretHash(key: Buffer, secret: string): string {
  return HASH_V2 + hmac(derivedKeys(key).webhookSecretMac, secret);
}

/** True when `given` is the job's secret; constant time for any `given`. */
export function webhookSecretMatches(key: Buffer, storedHash: string, given: string | undefined): boolean {
  const current = storedHash.startsWith(HASH_V2);
  const expected = Buffer.from(current ? storedHash.slice(HASH_V2.length) : storedHash, 'hex');
  const actual = Buffer.from(hmac(current ? derivedKeys(key).webhookSecretMac : key, given ?? ''), 'hex');
  return given !== undefined && expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Whether a stored hash is of the first version, made under the encryption key itself. */
export function needsRehash(storedHash: string): boolean {
  return !storedHash.startsWith(HASH_V2);
}

/**
 * The webhook columns a job gets from a create or a PATCH. A webhook_trigger job keeps its token
 * (a new one is made when a job becomes one) and its secret unless `secretGiven` says the input
 * set or cleared it; any other kind has none.
 */
export function webhookColumns(
  key: Buffer,
  job: WebhookOwner,
  input: Pick<JobInput, 'kind' | 'webhook_secret'>,
  current: WebhookColumns | null,
  secretGiven: boolean,
): WebhookColumns {
  if (input.kind !== 'webhook_trigger') return { webhookToken: null, webhookTokenHash: null, webhookSecretHash: null };
  const token = current?.webhookTokenHash ? null : newToken(TRIGGER_TOKEN_PREFIX);
  const secret = input.webhook_secret;
  return {
    webhookToken: token ? encryptValue(key, token, tokenPlace(job)) : (current?.webhookToken ?? null),
    webhookTokenHash: token ? hashToken(token) : (current?.webhookTokenHash ?? null),
    webhookSecretHash: secretGiven ? (secret ? webhookSecretHash(key, secret) : null) : (current?.webhookSecretHash ?? null),
  };
}

/** The job's trigger token in clear, or null when it has none or it cannot be decrypted with this key. */
export function revealWebhookToken(key: Buffer, job: WebhookOwner & Pick<JobRow, 'webhookToken'>): string | null {
  if (!job.webhookToken) return null;
  try {
    return decryptValue(key, job.webhookToken, tokenPlace(job));
  } catch (error) {
    if (error instanceof DecryptionError) return null;
    throw error;
  }
}
