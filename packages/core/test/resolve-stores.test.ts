import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../src/config/config.js';
import { createLogger } from '../src/logging/logger.js';
import { resolveStores, StoreUnavailableError } from '../src/runtime/resolve-stores.js';
import { closedPort, databaseUrl, redisUrl } from './test-env.js';

// Where the service finds its database and queues when nothing, or only part, is configured
// (README "Zero-install default"). The default addresses are swapped for ports where nothing
// listens, as on a machine with only Node.js.

const logger = createLogger({ level: 'silent', production: false, service: 'test' });
let dir: string;
let dead: number;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cronsvc-stores-'));
  await chmod(dir, 0o755);
  dead = await closedPort();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The configuration of these variables, with the default addresses moved to a dead port. */
function config(env: Record<string, string>): Config {
  const loaded = loadConfig({ SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'), EMBEDDED_PG_DIR: path.join(dir, 'pg'), ...env });
  return {
    ...loaded,
    databaseUrl: loaded.databaseUrlSet ? loaded.databaseUrl : `postgresql://postgres@127.0.0.1:${dead}/cron_service`,
    redisUrl: loaded.redisUrlSet ? loaded.redisUrl : `redis://127.0.0.1:${dead}`,
  };
}

it('falls back to the embedded PostgreSQL and to queues on PostgreSQL when nothing is configured or answering', async () => {
  const stores = await resolveStores(config({}), logger);
  try {
    expect(stores.embedded?.owned).toBe(true);
    expect(stores.config.databaseUrl).toBe(stores.embedded?.url);
    expect(stores.config.queueBackend).toBe('postgres');
    expect(stores.lines).toEqual([
      expect.stringMatching(/^database: embedded PostgreSQL on 127\.0\.0\.1:\d+, data in .*\/pg \(set DATABASE_URL to use a server of your own\)$/),
      expect.stringMatching(/^queues: PostgreSQL, .*\(set REDIS_URL or QUEUE_BACKEND=redis to use Redis\)$/),
    ]);
  } finally {
    await stores.stop();
  }
});

it('never falls back with NODE_ENV=production: the unreachable default database is an error naming DATABASE_URL', async () => {
  const productionDir = path.join(dir, 'production-pg');
  await expect(resolveStores({ ...config({ NODE_ENV: 'production' }), embeddedPgDir: productionDir }, logger)).rejects.toThrow(
    new StoreUnavailableError(
      `DATABASE_URL: cannot connect to postgresql://postgres@127.0.0.1:${dead}/cron_service (connect ECONNREFUSED 127.0.0.1:${dead}). ` +
        'Set DATABASE_URL to a reachable PostgreSQL server (with NODE_ENV=production no embedded PostgreSQL starts unless DATABASE_URL=embedded).',
    ),
  );
  expect(existsSync(productionDir)).toBe(false);
});

it('keeps the queues on Redis in production even when none answers, and says to set REDIS_URL or QUEUE_BACKEND', async () => {
  await expect(resolveStores(config({ NODE_ENV: 'production', DATABASE_URL: databaseUrl('postgres') }), logger)).rejects.toThrow(
    /^REDIS_URL: cannot connect to redis:\/\/127\.0\.0\.1:\d+\/? .*Set REDIS_URL to a reachable Redis, or QUEUE_BACKEND=postgres/,
  );
});

it('uses a configured database and Redis as they are, and QUEUE_BACKEND over REDIS_URL', async () => {
  const url = databaseUrl('postgres');
  const onRedis = await resolveStores(config({ DATABASE_URL: url, REDIS_URL: redisUrl }), logger);
  expect(onRedis).toMatchObject({ embedded: undefined, config: { databaseUrl: url, queueBackend: 'redis' } });
  const onPostgres = await resolveStores(config({ DATABASE_URL: url, REDIS_URL: redisUrl, QUEUE_BACKEND: 'postgres' }), logger);
  expect(onPostgres.config.queueBackend).toBe('postgres');
  // Unset QUEUE_BACKEND and REDIS_URL with no Redis answering: the queues go to PostgreSQL.
  const fallback = await resolveStores(config({ DATABASE_URL: url }), logger);
  expect(fallback.config.queueBackend).toBe('postgres');
});
