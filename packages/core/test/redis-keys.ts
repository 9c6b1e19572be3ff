import { Redis } from 'ioredis';
import { redisUrl } from './test-env.js';

/** Deletes every Redis key under `prefix` (what flushing a deployment's Redis does to it); returns how many. */
export async function deletePrefixKeys(prefix: string): Promise<number> {
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
