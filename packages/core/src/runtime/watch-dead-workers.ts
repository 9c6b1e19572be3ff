import type { SqlPool } from '../db/client.js';
import type { Logger } from '../logging/logger.js';
import { repeat } from './repeat.js';

/**
 * Every `intervalMs`, asks `reclaim` for the work of workers whose heartbeat has been silent for
 * `deadAfterMs` and hands what it found to `take` (docs/adr/018-liveness-based-reclaim.md). When
 * this process's own database access fails (a restart, a network cut), every worker's heartbeat
 * goes quiet with it: until that access works again and for `deadAfterMs` after, it judges nobody,
 * and the others, alive, beat again meanwhile. stop() waits for a check in progress.
 */
export function watchDeadWorkers<R extends { workers: string[] }>(
  deps: { pool: SqlPool; logger: Logger },
  options: { what: string; intervalMs: number; deadAfterMs: number; reclaim: () => Promise<R>; take: (reclaimed: R) => void },
): { stop(): Promise<void> } {
  let failing = false;
  let judgeFrom = 0;
  const check = async () => {
    if (failing || Date.now() < judgeFrom) {
      await deps.pool.query('SELECT 1');
      if (failing) judgeFrom = Date.now() + options.deadAfterMs;
      failing = false;
      return;
    }
    const reclaimed = await options.reclaim();
    if (reclaimed.workers.length > 0) options.take(reclaimed);
  };
  const stop = repeat(`looking for dead ${options.what}`, check, options.intervalMs, (name, error) => {
    if (!failing) deps.logger.warn(`${name} failed; retrying`, { error: (error as Error).message });
    failing = true;
  });
  return { stop };
}
