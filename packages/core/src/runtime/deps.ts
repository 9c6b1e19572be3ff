import type { Config } from '../config/config.js';
import type { Db } from '../db/client.js';
import type { Logger } from '../logging/logger.js';
import type { Queues } from '../queues/queues.js';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** What use cases touch, passed in so tests can supply their own database, queues and clock. */
export interface Deps {
  db: Db;
  queues: Queues;
  clock: Clock;
  logger: Logger;
  config: Config;
}
