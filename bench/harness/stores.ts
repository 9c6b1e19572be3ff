// The throwaway Postgres database and Redis key prefix of one bench run.
import { processAlive } from '@cronsvc/core';
import { Redis } from 'ioredis';
import pg from 'pg';
import { spawnTsx } from './processes.js';

export const BASE_DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cron_service';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export function databaseUrl(name: string): string {
  return withDatabase(BASE_DATABASE_URL, name);
}

/** `url` with another database name. */
export function withDatabase(url: string, name: string): string {
  const out = new URL(url);
  out.pathname = `/${name}`;
  return out.toString();
}

async function admin<T>(work: (client: pg.Client) => Promise<T>, serverUrl = BASE_DATABASE_URL): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Databases and Redis keys of bench runs that were killed (their pid is gone). */
export async function dropLeftovers(redis: Redis): Promise<string[]> {
  const dropped: string[] = [];
  await admin(async (c) => {
    const { rows } = await c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname ~ '^cronsvc_bench_[0-9]+$'`);
    for (const { datname } of rows) {
      const pid = Number(datname.split('_')[2]);
      if (pid !== process.pid && !processAlive(pid)) {
        await c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
        dropped.push(datname);
      }
    }
  });
  const stale = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', 'cronsvc_bench_*', 'COUNT', 1000);
    for (const key of keys) {
      const m = /^cronsvc_bench_(\d+)_[0-9a-f]+/.exec(key);
      if (m && Number(m[1]) !== process.pid && !processAlive(Number(m[1]))) stale.add(m[0]);
    }
    cursor = next;
  } while (cursor !== '0');
  for (const prefix of stale) {
    await deleteByPrefix(redis, prefix);
    dropped.push(`redis ${prefix}:*`);
  }
  return dropped;
}

/** Creates a database on the shared server, or on the server of `serverUrl`. */
export async function createDatabase(name: string, serverUrl = BASE_DATABASE_URL): Promise<void> {
  await admin((c) => c.query(`CREATE DATABASE ${name}`), serverUrl);
}

export async function dropDatabase(name: string): Promise<void> {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/** Applies the service's migrations the way `npm run migrate` does (BullMQ's schema too with QUEUE_BACKEND=postgres). */
export async function migrate(url: string, env: Record<string, string> = {}): Promise<void> {
  const p = spawnTsx('migrate', 'scripts/migrate.ts', { DATABASE_URL: url, ...env });
  const code = await p.exited;
  if (code !== 0) throw new Error(`migrating ${url} failed (exit ${code}):\n${p.tail()}`);
}

async function scanKeys(redis: Redis, pattern: string, each: (keys: string[]) => Promise<void>): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    if (keys.length > 0) await each(keys);
    cursor = next;
  } while (cursor !== '0');
}

export async function deleteByPrefix(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  await scanKeys(redis, `${prefix}:*`, async (keys) => {
    deleted += await redis.unlink(...keys);
  });
  return deleted;
}

/** Bytes of every key under a prefix (MEMORY USAGE, all samples), and how many keys there are. */
export async function prefixMemory(redis: Redis, prefix: string): Promise<{ bytes: number; keys: number }> {
  let bytes = 0;
  let keys = 0;
  await scanKeys(redis, `${prefix}:*`, async (batch) => {
    const pipeline = redis.pipeline();
    for (const key of batch) pipeline.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
    const results = (await pipeline.exec()) ?? [];
    for (const [error, value] of results) {
      if (!error && typeof value === 'number') {
        bytes += value;
        keys++;
      }
    }
  });
  return { bytes, keys };
}
