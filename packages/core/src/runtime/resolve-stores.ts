import { createConnection } from 'node:net';
import pg from 'pg';
import { ConfigError, EMBEDDED_DATABASE, type Config, type QueueBackendName } from '../config/config.js';
import { EmbeddedPostgresError, startEmbeddedPostgres, type EmbeddedPostgres } from '../db/embedded-postgres.js';
import type { Logger } from '../logging/logger.js';
import { createRedis } from './redis.js';

/** A database or Redis the configuration names cannot be reached at start-up (exit code 78). */
export class StoreUnavailableError extends ConfigError {}

export interface Stores {
  /** The configuration with a concrete database URL and queue backend. */
  config: Config & { queueBackend: QueueBackendName };
  /** The embedded server this process started or joined; undefined with a database of your own. */
  embedded: EmbeddedPostgres | undefined;
  /** One line each for the database and the queues: what is used and how to use your own. */
  lines: string[];
  /** Stops the embedded server if this process started it. */
  stop(): Promise<void>;
}

/** The URL without its password, for logs and messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/** Which Redis the configuration names, for the start-up line. */
function redisDescription(config: Config): string {
  if (config.redisSentinels.length > 0) {
    return `Redis master ${config.redisSentinelMaster} through the Sentinels ${config.redisSentinels.map((s) => `${s.host}:${s.port}`).join(',')}`;
  }
  return `${config.redisCluster ? 'Redis Cluster' : 'Redis'} at ${redactUrl(config.redisUrl)}, key prefix ${config.redisPrefix}`;
}

/** Whether anything accepts a TCP connection at the URL's host and port. */
function listening(url: string, defaultPort: number, timeoutMs = 1_000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port || defaultPort) });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function checkPostgres(url: string, advice: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    // 3D000: the server answered and the database does not exist yet; start-up creates it.
    if ((error as { code?: string }).code === '3D000') return;
    throw new StoreUnavailableError(`DATABASE_URL: cannot connect to ${redactUrl(url)} (${(error as Error).message}). ${advice}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function checkRedis(config: Config, advice: string): Promise<void> {
  const redis = createRedis(config, 'probe');
  // What went wrong first (a refused password, say): the connection then only reports it closed.
  let cause: Error | undefined;
  redis.on('error', (error: Error) => (cause ??= error));
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    const reason = (cause ?? (error as Error)).message;
    const via = config.redisSentinels.length > 0 ? ` through the Sentinels ${config.redisSentinels.map((s) => `${s.host}:${s.port}`).join(',')}` : '';
    throw new StoreUnavailableError(`REDIS_URL: cannot connect to ${redactUrl(config.redisUrl)}${via} (${reason}). ${advice}`);
  } finally {
    redis.disconnect();
  }
}

/**
 * Decides where the data and the queues live, as the configuration table of docs/CONFIGURATION.md
 * describes: an unset DATABASE_URL falls back to the embedded PostgreSQL when nothing answers
 * at the default address, and unset QUEUE_BACKEND and REDIS_URL fall back to BullMQ's
 * PostgreSQL backend when no Redis answers at the default address, except with
 * NODE_ENV=production, where nothing embedded starts unless asked for. A store that is named
 * (or defaulted) but cannot be reached is a StoreUnavailableError naming the variable to set.
 */
export async function resolveStores(config: Config, logger: Logger): Promise<Stores> {
  const production = config.nodeEnv === 'production';
  let databaseUrl = config.databaseUrl;
  let embedded: EmbeddedPostgres | undefined;
  const wantsEmbedded =
    config.databaseUrl === EMBEDDED_DATABASE || (!config.databaseUrlSet && !production && !(await listening(config.databaseUrl, 5432)));
  if (wantsEmbedded) {
    try {
      embedded = await startEmbeddedPostgres(config.embeddedPgDir, logger);
    } catch (error) {
      if (!(error instanceof EmbeddedPostgresError)) throw error;
      throw new StoreUnavailableError(`DATABASE_URL: the embedded PostgreSQL could not start: ${error.message}. Set DATABASE_URL to a PostgreSQL server of your own.`);
    }
    databaseUrl = embedded.url;
  } else {
    await checkPostgres(
      databaseUrl,
      production
        ? 'Set DATABASE_URL to a reachable PostgreSQL server (with NODE_ENV=production no embedded PostgreSQL starts unless DATABASE_URL=embedded).'
        : 'Set DATABASE_URL to a reachable PostgreSQL server, or DATABASE_URL=embedded for the embedded one.',
    );
  }
  const stopEmbedded = async () => {
    if (embedded?.owned) await embedded.stop();
  };
  let queueBackend: QueueBackendName;
  try {
    // 'auto' means REDIS_URL is unset too, so config.redisUrl is the default address.
    queueBackend = config.queueBackend === 'auto' ? (production || (await listening(config.redisUrl, 6379)) ? 'redis' : 'postgres') : config.queueBackend;
    if (queueBackend === 'redis') {
      await checkRedis(
        config,
        production
          ? 'Set REDIS_URL to a reachable Redis, or QUEUE_BACKEND=postgres to keep the queues in PostgreSQL (with NODE_ENV=production they never move there by themselves).'
          : 'Set REDIS_URL to a reachable Redis, or QUEUE_BACKEND=postgres to keep the queues in PostgreSQL.',
      );
    }
  } catch (error) {
    await stopEmbedded();
    throw error;
  }
  const lines = [
    embedded
      ? `database: embedded PostgreSQL on 127.0.0.1:${embedded.port}, data in ${embedded.dir} (set DATABASE_URL to use a server of your own)`
      : `database: ${redactUrl(databaseUrl)}${config.databaseUrlSet ? '' : ' (the default; set DATABASE_URL to use another)'}`,
    queueBackend === 'redis'
      ? `queues: ${redisDescription(config)} (QUEUE_BACKEND=postgres keeps them in PostgreSQL instead)`
      : `queues: PostgreSQL, BullMQ's PostgreSQL backend in the service's database (set REDIS_URL or QUEUE_BACKEND=redis to use Redis)`,
  ];
  return { config: Object.freeze({ ...config, databaseUrl, queueBackend }), embedded, lines, stop: stopEmbedded };
}

/** The environment that makes another process use the same stores without resolving them again. */
export function storesEnv(stores: Stores): Record<string, string> {
  return { DATABASE_URL: stores.config.databaseUrl, QUEUE_BACKEND: stores.config.queueBackend };
}
