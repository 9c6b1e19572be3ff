import type { Config } from '../config/config.js';
import type { Db } from '../db/client.js';
import { decryptValue, encryptValue, valuePlace } from '../secrets/crypto.js';
import { resolveSecrets } from '../secrets/resolve-secrets.js';
import { findPlaceholders, renderString } from '../templates/template.js';
import type { ChannelAdapter, ChannelConfig } from './adapters/adapter.js';

/** A channel's config split as stored: what the API shows, and the credentials it never does. */
export interface StoredConfig {
  config: ChannelConfig;
  credentials: Record<string, string>;
}

export function splitConfig(adapter: ChannelAdapter<unknown>, full: ChannelConfig): StoredConfig {
  const config: ChannelConfig = {};
  const credentials: Record<string, string> = {};
  for (const [key, value] of Object.entries(full)) {
    if (adapter.credentialFields.includes(key)) credentials[key] = value as string;
    else config[key] = value;
  }
  return { config, credentials };
}

/** The channel whose credentials these are: they open only in its row. */
export interface ChannelOwner {
  id: string;
  workspaceId: string;
}

const credentialsPlace = (channel: ChannelOwner) => valuePlace('notification_channels.credentials', channel.workspaceId, channel.id);

export function encryptCredentials(key: Buffer, channel: ChannelOwner, credentials: Record<string, string>): string {
  return encryptValue(key, JSON.stringify(credentials), credentialsPlace(channel));
}

// The notifier opens a channel's credentials for every delivery; a stored value has its own IV,
// so in its own row it always opens to the same object. Kept by row and value (the same value
// copied into another row must be checked there, and fail), bounded, and started over when full.
const MAX_OPENED = 10_000;
const opened = new WeakMap<Buffer, Map<string, Record<string, string>>>();

export function decryptCredentials(key: Buffer, channel: ChannelOwner, stored: string): Record<string, string> {
  let cache = opened.get(key);
  if (!cache) opened.set(key, (cache = new Map()));
  const cacheKey = `${channel.workspaceId}:${channel.id}:${stored}`;
  let value = cache.get(cacheKey);
  if (!value) {
    value = JSON.parse(decryptValue(key, stored, credentialsPlace(channel))) as Record<string, string>;
    if (cache.size >= MAX_OPENED) cache.clear();
    cache.set(cacheKey, value);
  }
  return value;
}

/** The `{{...}}` placeholders of the credentials: every one must name a secret (`{{secret.NAME}}`). */
export function credentialReferences(credentials: Record<string, string>): { field: string; placeholder: string; secret: string | null }[] {
  return Object.entries(credentials).flatMap(([field, value]) =>
    findPlaceholders(value).map((p) => ({ field, placeholder: p.placeholder, secret: p.variable?.kind === 'secret' ? p.variable.name : null })),
  );
}

export function secretNamesOf(credentials: Record<string, string>): string[] {
  return [...new Set(credentialReferences(credentials).flatMap((r) => (r.secret ? [r.secret] : [])))];
}

export type ResolvedConfig = { config: ChannelConfig; secretValues: string[] } | { missing: string[] };

/**
 * The whole config to send with: the shown fields plus the credentials with their
 * `{{secret.NAME}}` placeholders replaced by the decrypted values. `secretValues` holds every
 * credential and secret value, for masking them out of anything stored or shown.
 */
export async function resolveChannelConfig(
  deps: { db: Db; config: Pick<Config, 'secretsEncryptionKey'> },
  channel: ChannelOwner,
  shown: ChannelConfig,
  storedCredentials: string,
): Promise<ResolvedConfig> {
  const credentials = decryptCredentials(deps.config.secretsEncryptionKey, channel, storedCredentials);
  const names = secretNamesOf(credentials);
  const secrets = await resolveSecrets(deps, channel.workspaceId, names);
  if (secrets.missing.length > 0) return { missing: secrets.missing };
  const values = { timestamp: '', uuid: '', execution_id: '', secrets: secrets.values };
  const resolved = Object.fromEntries(Object.entries(credentials).map(([k, v]) => [k, names.length > 0 ? renderString(v, values) : v]));
  return { config: { ...shown, ...resolved }, secretValues: [...Object.values(resolved), ...secrets.values.values()] };
}
