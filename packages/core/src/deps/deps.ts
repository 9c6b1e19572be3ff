import type { Config } from '../config/config.js';
import type { Db, SqlPool } from '../db/client.js';
import type { Logger } from '../logging/logger.js';
import type { Queues } from '../queues/queues.js';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** What use cases touch, passed in so tests can supply their own database, queues and clock. */
export interface Deps {
  db: Db;
  /** The pool under `db`, for hot statements sent as named prepared statements (planned once per connection). */
  pool: SqlPool;
  queues: Queues;
  clock: Clock;
  logger: Logger;
  config: Config;
}
