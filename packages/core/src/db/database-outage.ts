import { isUnavailable, unavailableReason } from '../errors/unavailable.js';
import type { Logger } from '../logging/logger.js';

// How often a process looks whether the database is back while it waits for it: the lag of the
// work it holds after an outage ends is about this long, and four connection attempts a second
// cost a restarting server nothing.
export const DATABASE_PROBE_MS = 250;

/**
 * One process's wait for its database (docs/adr/033-noticing-the-database-is-back.md). Work that
 * failed because the database cannot serve waits for one shared probe instead of retrying on a
 * timer of its own, and runs again the moment the probe succeeds.
 */
export interface DatabaseOutage {
  /**
   * Given the error of a failed database call: undefined when it is not the database being away
   * (the caller handles it as before); otherwise a promise that resolves once the database
   * answers again. The probe starts with the first such error and stops at the first answer.
   */
  untilBack(error: unknown): Promise<void> | undefined;
  /** Whether the process is waiting for the database now (a probe found it away). */
  readonly down: boolean;
  /** Stops probing; waiters are left waiting (the process is stopping). */
  stop(): void;
}

export function databaseOutage(
  probe: () => Promise<unknown>,
  logger: Logger,
  options: { probeMs?: number; now?: () => number } = {},
): DatabaseOutage {
  const probeMs = options.probeMs ?? DATABASE_PROBE_MS;
  const now = options.now ?? Date.now;
  let back: Promise<void> | undefined;
  // Set when the first probe failed too: a blip (one terminated connection), or an error that only
  // looks like the database's (a refused Redis connection), is answered by that probe and logs nothing.
  let downSince: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const waitForAnswer = (error: unknown, since: number) =>
    new Promise<void>((resolve) => {
      const look = () => {
        timer = setTimeout(() => {
          timer = undefined;
          if (stopped) return;
          probe().then(
            () => {
              if (downSince !== undefined) logger.info('the database is back', { downMs: now() - downSince });
              downSince = undefined;
              back = undefined;
              resolve();
            },
            // One look at a time: a probe that waits for its connection (a network cut) delays the next.
            () => {
              if (downSince === undefined) {
                downSince = since;
                logger.warn(`the database cannot be reached (${unavailableReason(error)}); work waits and goes on as soon as it answers`, { error: (error as Error).message });
              }
              look();
            },
          );
        }, probeMs);
      };
      look();
    });

  return {
    untilBack(error) {
      if (!isUnavailable(error)) return undefined;
      back ??= waitForAnswer(error, now());
      return back;
    },
    get down() {
      return downSince !== undefined;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
