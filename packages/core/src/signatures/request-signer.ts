import type { Db } from '../db/client.js';
import type { Clock } from '../runtime/deps.js';
import { signatureHeaders } from './sign.js';
import { loadSigningKeys } from './signing-keys.js';

/** Signs what a workspace sends with its current (and, within 24 h of a rotation, previous) key. */
export function createRequestSigner(deps: { db: Db; clock: Clock; config: { secretsEncryptionKey: Buffer } }) {
  return async (workspaceId: string, messageId: string, body: string): Promise<Record<string, string>> => {
    const now = deps.clock.now();
    const keys = await loadSigningKeys(deps.db, deps.config.secretsEncryptionKey, workspaceId, now);
    return signatureHeaders(keys, messageId, Math.floor(now.getTime() / 1000), body);
  };
}
