import type { Config } from '../config/config.js';
import { EMBEDDED_DATABASE } from '../config/config.js';
import { applyMigrations, ensureDatabase } from '../db/migrate.js';
import type { Logger } from '../logging/logger.js';
import { upgradeStoredValues } from '../secrets/upgrade-stored-values.js';

export function assertResolved(config: Config): void {
  if (config.databaseUrl === EMBEDDED_DATABASE || config.queueBackend === 'auto') {
    throw new Error('resolveStores() must decide the database and the queue backend before this');
  }
}

/**
 * What a process does with BOOTSTRAP_API_TOKEN: `own` applies it and revokes the tokens it made
 * before that are not the current one (all of them when it is unset): the process that serves
 * the API; `apply` only applies it (a worker started alone); `leave` leaves it to other processes
 * (the supervisor of `npm start`, whose API child owns it).
 */
export type BootstrapRole = 'own' | 'apply' | 'leave';

/**
 * Creates the database if missing, applies migrations (and BullMQ's schema when the queues are
 * on PostgreSQL), rewrites stored values of an older form, and does with the bootstrap token what
 * `bootstrapToken` says (`apply` unless told). BullMQ and Prisma are
 * imported only when needed, so that a process that only prepares the database (the supervisor
 * of `npm start`) does not hold them in memory.
 */
export async function prepareDatabase(config: Config, logger: Logger, options: { bootstrapToken?: BootstrapRole } = {}): Promise<void> {
  assertResolved(config);
  await ensureDatabase(config.databaseUrl);
  const applied = await applyMigrations(config.databaseUrl);
  if (applied.length > 0) logger.info('migrations applied', { applied });
  const upgraded = await upgradeStoredValues(config.databaseUrl, config.secretsEncryptionKey);
  if (Object.keys(upgraded.rewritten).length > 0) logger.info('stored values re-encrypted (enc2)', { rewritten: upgraded.rewritten });
  if (Object.keys(upgraded.unreadable).length > 0) {
    logger.warn('stored values that do not open with SECRETS_ENCRYPTION_KEY were left as they are', { unreadable: upgraded.unreadable });
  }
  if (config.queueBackend === 'postgres') await (await import('../queues/queue-connection.js')).applyQueueSchema(config.databaseUrl);
  const role = options.bootstrapToken ?? 'apply';
  const applies = config.bootstrapApiToken !== undefined && role !== 'leave';
  if (applies || role === 'own') {
    const [{ createDb, createPool }, { ensureBootstrapWorkspace, revokeBootstrapTokens }] = await Promise.all([import('../db/client.js'), import('../workspaces/workspaces.js')]);
    if (role === 'own') {
      const pool = createPool(config.databaseUrl, { max: 1 });
      try {
        const revoked = await revokeBootstrapTokens(pool, config.bootstrapApiToken);
        if (revoked.length > 0) {
          const why = config.bootstrapApiToken === undefined ? 'BOOTSTRAP_API_TOKEN is not set' : 'BOOTSTRAP_API_TOKEN is another value now';
          logger.warn(`revoked ${revoked.length} API token(s) made by an earlier BOOTSTRAP_API_TOKEN (npm run dev's dev-token is one): ${why}`, { revoked });
        }
      } finally {
        await pool.end();
      }
    }
    // Prisma only with the setting: a start without it loads no query compiler here.
    if (applies) {
      const db = createDb(config.databaseUrl, { max: 1 });
      try {
        await ensureBootstrapWorkspace(db, config.secretsEncryptionKey, config.bootstrapApiToken!);
      } finally {
        await db.$disconnect();
      }
    }
  }
}
