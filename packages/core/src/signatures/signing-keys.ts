import type { Actor } from '../access/actor.js';
import { withAudit } from '../access/audit.js';
import type { SigningKey } from '@cronsvc/contracts';
import type { Db } from '../db/client.js';
import { AppError } from '../errors/app-error.js';
import type { Deps } from '../deps/deps.js';
import { encryptValue } from '../secrets/crypto.js';
import type { SigningKeys } from './sign.js';
import { generateSigningKey, openSigningKey, signingKeyBytes, signingKeyPlace } from './signing-key-format.js';

/** How long after a rotation requests also carry a signature made with the previous key. */
export const PREVIOUS_KEY_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** Rotations racing each other retry this often before giving up with 409 conflict. */
const ROTATE_TRIES = 3;

async function workspaceKeys(db: Db, workspaceId: string) {
  const row = await db.workspace.findUnique({
    where: { id: workspaceId },
    select: { signingKey: true, signingKeyCreatedAt: true, previousSigningKey: true, signingKeyRotatedAt: true },
  });
  if (!row) throw AppError.notFound('workspace');
  return row;
}

export async function getSigningKey(deps: Pick<Deps, 'db' | 'config'>, workspaceId: string): Promise<SigningKey> {
  const row = await workspaceKeys(deps.db, workspaceId);
  return { signing_key: openSigningKey(deps.config.secretsEncryptionKey, row.signingKey, signingKeyPlace(workspaceId, 'current')), created_at: row.signingKeyCreatedAt.toISOString() };
}

/**
 * Replaces the workspace key and keeps the replaced one as the previous key, so requests
 * carry both signatures for 24 h. Rotating again within those 24 h makes the key just
 * replaced the previous one and drops the older key at once: only one roll-over is in flight.
 * A plaintext key from before encryption is stored encrypted from here on, in both columns.
 */
export async function rotateSigningKey(deps: Pick<Deps, 'db' | 'config' | 'clock'>, workspaceId: string, actor?: Actor): Promise<SigningKey> {
  const encryptionKey = deps.config.secretsEncryptionKey;
  for (let i = 0; i < ROTATE_TRIES; i += 1) {
    const row = await workspaceKeys(deps.db, workspaceId);
    const key = generateSigningKey();
    const now = deps.clock.now();
    // Compare-and-set on the stored value (a fresh IV makes each one unique): of two concurrent
    // rotations one loses and retries, instead of both claiming the same previous key and
    // silently discarding a key that was already handed out.
    const rotate = deps.db.workspace.updateMany({
      where: { id: workspaceId, signingKey: row.signingKey },
      data: {
        signingKey: encryptValue(encryptionKey, key, signingKeyPlace(workspaceId, 'current')),
        signingKeyCreatedAt: now,
        previousSigningKey: encryptValue(encryptionKey, openSigningKey(encryptionKey, row.signingKey, signingKeyPlace(workspaceId, 'current')), signingKeyPlace(workspaceId, 'previous')),
        signingKeyRotatedAt: now,
      },
    });
    const { count } = await withAudit(deps.db, rotate, actor, { action: 'signing_key.rotated', targetType: 'signing_key', targetId: null, changedFields: ['signing_key'] });
    if (count === 1) return { signing_key: key, created_at: now.toISOString() };
  }
  throw new AppError('conflict', 'the signing key is being rotated concurrently; try again');
}

export interface StoredSigningKeys {
  workspaceId: string;
  signingKey: string;
  previousSigningKey: string | null;
  signingKeyRotatedAt: Date | null;
}

// Every attempt signs with its workspace's key, and decrypting it each time cost the executor
// ~30 µs an attempt. A stored value is never reused for another key (each has its own IV), so in
// its own place it maps to one HMAC key for good. Kept by place and value (the same value copied
// into another workspace must be checked there, and fail); bounded, and started over when full.
const MAX_OPENED_KEYS = 10_000;
const openedKeys = new WeakMap<Buffer, Map<string, Buffer>>();

function hmacKey(encryptionKey: Buffer, stored: string, workspaceId: string, which: 'current' | 'previous'): Buffer {
  let opened = openedKeys.get(encryptionKey);
  if (!opened) openedKeys.set(encryptionKey, (opened = new Map()));
  const cacheKey = `${workspaceId}:${which}:${stored}`;
  let key = opened.get(cacheKey);
  if (!key) {
    key = signingKeyBytes(openSigningKey(encryptionKey, stored, signingKeyPlace(workspaceId, which)));
    if (opened.size >= MAX_OPENED_KEYS) opened.clear();
    opened.set(cacheKey, key);
  }
  return key;
}

/** The HMAC keys to sign with at `now`: the current one, plus the previous one during the overlap. */
export function signingKeysFrom(row: StoredSigningKeys, encryptionKey: Buffer, now: Date): SigningKeys {
  const current = hmacKey(encryptionKey, row.signingKey, row.workspaceId, 'current');
  const { previousSigningKey: previous, signingKeyRotatedAt: rotatedAt } = row;
  if (!previous || !rotatedAt || now.getTime() - rotatedAt.getTime() >= PREVIOUS_KEY_OVERLAP_MS) return { current };
  return { current, previous: hmacKey(encryptionKey, previous, row.workspaceId, 'previous') };
}

export async function loadSigningKeys(db: Db, encryptionKey: Buffer, workspaceId: string, now: Date): Promise<SigningKeys> {
  return signingKeysFrom({ workspaceId, ...(await workspaceKeys(db, workspaceId)) }, encryptionKey, now);
}
