import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';

/** The server the tests run against: DATABASE_URL / REDIS_URL, as `npm test` documents. */
export const baseDatabaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cron_service';
export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** This jest run (set by the global setup); database names carry it. */
export const testRun = process.env.CRONSVC_TEST_RUN ?? String(process.pid);

/** The migrated database every test database is copied from, made afresh by the global setup. */
export const templateName = `cronsvc_tpl_${testRun}`;

export function databaseUrl(name: string): string {
  const url = new URL(baseDatabaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** A port of 127.0.0.1 that nothing listens on (one was just opened there and closed): a store or target that cannot be reached. */
export async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((r) => probe.close(r));
  return port;
}

/** Deletes the Redis keys under `prefix` (a test's REDIS_PREFIX), as a lost Redis would; answers how many went. */
export async function deleteRedisKeys(prefix: string): Promise<number> {
  const redis = new Redis(redisUrl);
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length) deleted += await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  redis.disconnect();
  return deleted;
}
