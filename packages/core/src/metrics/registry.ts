import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The one registry of this process: the service's families (families.ts) and Node's process
 * metrics (`process_resident_memory_bytes`, `nodejs_eventloop_lag_seconds`, ...). Under
 * `npm start` the supervisor adds up every process's registry into one scrape
 * (docs/adr/017-operating-signals.md).
 */
export const processRegistry = new Registry();

collectDefaultMetrics({ register: processRegistry });
