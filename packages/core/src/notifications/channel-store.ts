import Joi from 'joi';
import type { Db, Prisma } from '../db/client.js';
import type { NotificationChannel } from '../db/generated/client.js';
import type { Actor } from '../access/actor.js';
import { writeAudit } from '../access/audit.js';
import { AppError } from '../errors/app-error.js';
import { pagingKeys, type Page } from '../lists/paging.js';
import type { Deps } from '../deps/deps.js';
import { validate } from '../validation/validate.js';
import type { Channel, ChannelType } from '@cronsvc/contracts';
import { CHANNEL_ADAPTERS } from './adapters/index.js';
import { decryptCredentials } from './channel-credentials.js';

export type ChannelRow = NotificationChannel;

/** Channels per workspace (docs/NOTIFICATIONS.md, "Channels"). */
export const MAX_CHANNELS_PER_WORKSPACE = 25;

export async function findChannel(db: Db | Prisma.TransactionClient, workspaceId: string, id: string): Promise<ChannelRow> {
  const channel = await db.notificationChannel.findFirst({ where: { id, workspaceId } });
  if (!channel) throw AppError.notFound('notification channel');
  return channel;
}

const querySchema = Joi.object(pagingKeys);

/** Oldest first: a workspace has at most 25, and their order then never changes. */
export async function listChannels(deps: Pick<Deps, 'db'>, workspaceId: string, query: unknown): Promise<Page<ChannelRow>> {
  const q = validate<{ limit: number; offset: number }>(querySchema.prefs({ convert: true }), query);
  const where = { workspaceId };
  const [data, total] = await Promise.all([
    deps.db.notificationChannel.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: q.limit, skip: q.offset }),
    deps.db.notificationChannel.count({ where }),
  ]);
  return { data, total, limit: q.limit, offset: q.offset };
}

/** Deletes a channel and, by cascade, its rules. Its past deliveries stay in the history. */
export async function deleteChannel(deps: Pick<Deps, 'db'>, workspaceId: string, id: string, actor?: Actor): Promise<void> {
  await deps.db.$transaction(async (tx) => {
    const { count } = await tx.notificationChannel.deleteMany({ where: { id, workspaceId } });
    if (count === 0) throw AppError.notFound('notification channel');
    await writeAudit(tx, actor, { action: 'notification_channel.deleted', targetType: 'notification_channel', targetId: id });
  });
}

/** A channel as the API shows it: never a credential, only which ones are set. */
export function serializeChannel(channel: ChannelRow, encryptionKey: Buffer): Channel {
  const adapter = CHANNEL_ADAPTERS[channel.type as ChannelType];
  const credentials = decryptCredentials(encryptionKey, channel, channel.credentials);
  return {
    id: channel.id,
    name: channel.name,
    type: channel.type as ChannelType,
    config: channel.config as Record<string, unknown>,
    configured_secrets: adapter.credentialFields.filter((f) => credentials[f] !== undefined),
    created_at: channel.createdAt.toISOString(),
    updated_at: channel.updatedAt.toISOString(),
  };
}
