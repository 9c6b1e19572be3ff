import type { Config } from '../config/config.js';
import type { Db, SqlPool } from '../db/client.js';
import type { Logger } from '../logging/logger.js';
import type { Queues } from '../queues/queues.js';
import type { Tracing } from '../tracing/tracing.js';

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
  /** Spans exported over OTLP (docs/adr/030-spans-exported-over-otlp.md); absent when OTEL_EXPORTER_OTLP_ENDPOINT is unset. */
  tracing?: Tracing;
}
