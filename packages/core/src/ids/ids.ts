import { createHash, randomBytes, randomFillSync } from 'node:crypto';

export type IdPrefix = 'job' | 'exe' | 'sec' | 'chn' | 'rul' | 'dlv' | 'mon' | 'wsp' | 'tok' | 'stp' | 'wrk' | 'aud';

const ID_BYTES = 16;
// Ids are drawn from a pool filled 256 at a time, as Node's randomUUID does: one call into the
// CSPRNG per id cost a noticeable share of a POST /v1/jobs.
const pool = Buffer.alloc(ID_BYTES * 256);
let offset = pool.length;

/** Opaque ids with a type prefix (docs/API.md, "Conventions"): 16 random bytes, base64url. */
export function newId(prefix: IdPrefix): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return `${prefix}_${id}`;
}

/** The secret part of a public badge URL: `bdg_` and 64 hex digits (256 random bits). */
export function newBadgeToken(): string {
  return `bdg_${randomBytes(32).toString('hex')}`;
}

/** The secret part of a public status page URL: `sts_` and 64 hex digits (256 random bits). */
export function newStatusPageToken(): string {
  return `sts_${randomBytes(32).toString('hex')}`;
}

/**
 * How a token is stored and looked up: its SHA-256. Tokens have 256 bits of entropy, so a plain hash
 * is as good as a slow one, and a lookup by hash under a unique index never compares tokens.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * A random secret token with at least 256 bits of entropy. Never one that opens with `-`: a token
 * given to a command (`cronsvc ping <token>`, curl) would read as an option.
 */
export function newToken(prefix = ''): string {
  for (;;) {
    const token = prefix + randomBytes(32).toString('base64url');
    if (!token.startsWith('-')) return token;
  }
}
