import { randomBytes } from 'node:crypto';

export type IdPrefix = 'job' | 'exe' | 'sec' | 'chn' | 'rul' | 'dlv' | 'mon' | 'wsp' | 'tok';

/** Opaque ids with a type prefix (DECISIONS D3): 16 random bytes, base64url. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(16).toString('base64url')}`;
}

/** A random secret token with at least 256 bits of entropy. */
export function newToken(prefix = ''): string {
  return prefix + randomBytes(32).toString('base64url');
}
