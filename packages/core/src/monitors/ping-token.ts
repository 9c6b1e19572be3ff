import type { Monitor } from '../db/generated/client.js';
import { decryptValue, DecryptionError, encryptValue, isEncrypted, valuePlace } from '../secrets/crypto.js';

/**
 * A monitor's ping token is a bearer credential shown in its `ping_url` on every read, so it is
 * stored like a trigger token: encrypted (bound to the monitor's row), with its SHA-256 beside it
 * for lookups (docs/MONITORS.md, "Reference").
 */

type PingOwner = Pick<Monitor, 'id' | 'workspaceId'>;

const place = (monitor: PingOwner) => valuePlace('monitors.ping_token', monitor.workspaceId, monitor.id);

export function sealPingToken(key: Buffer, monitor: PingOwner, token: string): string {
  return encryptValue(key, token, place(monitor));
}

/**
 * The token in clear, or null when it cannot be decrypted with this key (or was moved from
 * another row). A token stored before encryption is read as it is until start-up encrypts it.
 */
export function revealPingToken(key: Buffer, monitor: PingOwner & Pick<Monitor, 'pingToken'>): string | null {
  if (!isEncrypted(monitor.pingToken)) return monitor.pingToken;
  try {
    return decryptValue(key, monitor.pingToken, place(monitor));
  } catch (error) {
    if (error instanceof DecryptionError) return null;
    throw error;
  }
}
