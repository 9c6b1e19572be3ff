import { createHmac } from 'node:crypto';
import Joi from 'joi';
import type { Actor } from '../access/actor.js';
import { fieldsOf, writeAudit } from '../access/audit.js';
import type { Config } from '../config/config.js';
import { Prisma } from '../db/client.js';
import { AppError, type ErrorDetail } from '../errors/app-error.js';
import { isBlockedLiteralHost, PRIVATE_TARGET_MESSAGE } from '../http/target-guard.js';
import { newId } from '../ids/ids.js';
import type { Deps } from '../deps/deps.js';
import { derivedKeys } from '../secrets/crypto.js';
import { placeholderSafeUrl } from '../templates/template.js';
import { validate } from '../validation/validate.js';
import { CHANNEL_TYPES, type ChannelType } from '@cronsvc/contracts';
import { CHANNEL_ADAPTERS, type ChannelAdapter, type ChannelConfig } from './adapters/index.js';
import { credentialReferences, decryptCredentials, encryptCredentials, secretNamesOf, splitConfig, type ChannelOwner } from './channel-credentials.js';
import { findChannel, MAX_CHANNELS_PER_WORKSPACE, type ChannelRow } from './channel-store.js';

export const createSchema = Joi.object({
  name: Joi.string().trim().min(1).max(200).required(),
  type: Joi.string().valid(...CHANNEL_TYPES).required(),
  config: Joi.object().required(),
});

export const patchSchema = Joi.object({
  name: Joi.string().trim().min(1).max(200),
  type: Joi.string().valid(...CHANNEL_TYPES),
  config: Joi.object(),
})
  .min(1)
  .messages({ 'object.min': 'a PATCH must change at least one field' });

interface ChannelInput {
  name: string;
  type: ChannelType;
  config: ChannelConfig;
}

/** The type's config schema, with every problem reported under `config.`. */
function validConfig(adapter: ChannelAdapter<unknown>, config: ChannelConfig): ChannelConfig {
  return validate<ChannelConfig>(adapter.configSchema, config, { prefix: 'config' });
}

/** Save-time checks beyond the schema: placeholders name secrets only, and URLs are not private literal addresses. */
function checkConfig(config: Pick<Config, 'allowPrivateTargets'>, adapter: ChannelAdapter<unknown>, full: ChannelConfig): void {
  const problems: ErrorDetail[] = [];
  const { credentials } = splitConfig(adapter, full);
  for (const ref of credentialReferences(credentials)) {
    if (ref.secret === null) problems.push({ path: `config.${ref.field}`, message: `${ref.placeholder} is not allowed here: credentials may only use {{secret.<name>}}` });
  }
  if (!config.allowPrivateTargets) {
    for (const field of adapter.urlFields) {
      const url = full[field];
      if (typeof url === 'string' && isBlockedLiteralHost(placeholderSafeUrl(url))) {
        problems.push({ path: `config.${field}`, message: PRIVATE_TARGET_MESSAGE });
      }
    }
  }
  if (problems.length > 0) throw AppError.validation(problems);
}

/**
 * Locks the secrets the credentials name (FOR KEY SHARE) until the transaction ends, so a delete
 * of one of them waits and then sees this channel; a name the workspace does not have is a 400.
 */
async function lockReferencedSecrets(tx: Prisma.TransactionClient, workspaceId: string, credentials: Record<string, string>): Promise<void> {
  const refs = credentialReferences(credentials).filter((r) => r.secret !== null);
  if (refs.length === 0) return;
  const names = secretNamesOf(credentials);
  const rows = await tx.$queryRaw<{ name: string }[]>`
    SELECT name FROM secrets WHERE workspace_id = ${workspaceId} AND name IN (${Prisma.join(names)}) FOR KEY SHARE`;
  const found = new Set(rows.map((r) => r.name));
  const problems = refs.filter((r) => !found.has(r.secret!)).map((r) => ({ path: `config.${r.field}`, message: `secret "${r.secret}" does not exist in this workspace` }));
  if (problems.length > 0) throw AppError.validation(problems);
}

/**
 * Who the channel's messages reach: an HMAC of its type and destination fields (templates as
 * written), under a key derived for this alone. Keyed, because those fields include credentials
 * (a bot token, a webhook URL holding its secret): a plain hash of one would let anyone with the
 * database test guesses against it.
 */
export function destinationKey(key: Buffer, adapter: ChannelAdapter<unknown>, full: ChannelConfig): string {
  const parts = adapter.destinationFields.map((field) => (full[field] === undefined || full[field] === null ? '' : String(full[field])));
  return createHmac('sha256', derivedKeys(key).channelDestinationMac).update(JSON.stringify([adapter.type, ...parts])).digest('hex');
}

/** Validates a whole channel and prepares its stored columns. */
function prepare(deps: Pick<Deps, 'config'>, channel: ChannelOwner, input: ChannelInput) {
  const adapter = CHANNEL_ADAPTERS[input.type];
  const full = validConfig(adapter, input.config);
  checkConfig(deps.config, adapter, full);
  const { config, credentials } = splitConfig(adapter, full);
  return {
    credentials,
    data: {
      name: input.name,
      type: input.type,
      config: config as Prisma.InputJsonValue,
      credentials: encryptCredentials(deps.config.secretsEncryptionKey, channel, credentials),
      secretRefs: secretNamesOf(credentials),
      destinationKey: destinationKey(deps.config.secretsEncryptionKey, adapter, full),
    },
  };
}

export async function createChannel(deps: Pick<Deps, 'db' | 'config' | 'clock'>, workspaceId: string, body: unknown, actor?: Actor): Promise<ChannelRow> {
  const input = validate<ChannelInput>(createSchema, body);
  const id = newId('chn');
  const { credentials, data } = prepare(deps, { id, workspaceId }, input);
  const now = deps.clock.now();
  return deps.db.$transaction(async (tx) => {
    // Channel creates of one workspace take turns, so the limit holds under concurrency.
    await tx.$queryRaw`SELECT id FROM workspaces WHERE id = ${workspaceId} FOR NO KEY UPDATE`;
    const count = await tx.notificationChannel.count({ where: { workspaceId } });
    if (count >= MAX_CHANNELS_PER_WORKSPACE) {
      throw new AppError('limit_exceeded', `a workspace can have at most ${MAX_CHANNELS_PER_WORKSPACE} notification channels; delete one first`);
    }
    await lockReferencedSecrets(tx, workspaceId, credentials);
    await writeAudit(tx, actor, { action: 'notification_channel.created', targetType: 'notification_channel', targetId: id, changedFields: fieldsOf(body) });
    return tx.notificationChannel.create({ data: { ...data, id, workspaceId, createdAt: now, updatedAt: now } });
  });
}

/**
 * Merges the config one level deep: given fields replace, a field set to null returns to its
 * default (or is removed), credentials left out stay. A new type starts from an empty config.
 */
function mergedConfig(current: ChannelConfig, patch: ChannelConfig | undefined): ChannelConfig {
  const next = { ...current };
  for (const [key, value] of Object.entries(patch ?? {})) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

/** PATCH: name, config (merged), and type (which then needs a whole config of its own). */
export async function updateChannel(deps: Pick<Deps, 'db' | 'config' | 'clock'>, workspaceId: string, id: string, body: unknown, actor?: Actor): Promise<ChannelRow> {
  const patch = validate<Partial<ChannelInput>>(patchSchema, body);
  return deps.db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM notification_channels WHERE id = ${id} AND workspace_id = ${workspaceId} FOR UPDATE`;
    const current = await findChannel(tx, workspaceId, id);
    const type = patch.type ?? (current.type as ChannelType);
    const typeChanged = type !== current.type;
    if (typeChanged && patch.config === undefined) {
      throw AppError.validation([{ path: 'config', message: `is required when the type changes (the ${current.type} config does not apply to ${type})` }]);
    }
    const currentConfig: ChannelConfig = typeChanged ? {} : { ...(current.config as ChannelConfig), ...decryptCredentials(deps.config.secretsEncryptionKey, current, current.credentials) };
    // A field given under another name (chat_a's `url`) replaces the stored one of its own name.
    for (const [alias, field] of Object.entries(CHANNEL_ADAPTERS[type].aliases ?? {})) if (patch.config && alias in patch.config) delete currentConfig[field];
    const { credentials, data } = prepare(deps, current, { name: patch.name ?? current.name, type, config: mergedConfig(currentConfig, patch.config) });
    await lockReferencedSecrets(tx, workspaceId, credentials);
    await writeAudit(tx, actor, { action: 'notification_channel.updated', targetType: 'notification_channel', targetId: id, changedFields: fieldsOf(body) });
    return tx.notificationChannel.update({ where: { id }, data: { ...data, updatedAt: deps.clock.now() } });
  });
}
