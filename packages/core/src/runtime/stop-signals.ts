import type { Logger } from '../logging/logger.js';

/**
 * Signals closer together than this are one stop. Ctrl-C signals every process of the terminal's
 * process group, and `npm start`'s supervisor passes the stop on to its children as well, so
 * each child gets the same stop twice within milliseconds; only a signal after this long is the
 * operator's second Ctrl-C.
 */
export const SAME_STOP_MS = 1_000;

/** How long a deliberate second Ctrl-C waits for work in flight to be handed back before exiting anyway. */
export const HAND_BACK_MS = 5_000;

/** What a process runs, in the order it stops. */
export interface Stoppable {
  /** Stops taking work and finishes what is in flight. */
  stop(): Promise<void>;
  /** Gives the work still in flight back to be run again elsewhere; stop() then ends without it. */
  abandon?(): Promise<void>;
  /** Requests in flight, for the notice a stop prints. */
  inFlight?(): number;
}

/** The signals that stop a process of the service; SIGHUP is a closed terminal or a dropped SSH session. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * A hung-up terminal fails every later write to it (EIO), and a closed pipe too (EPIPE); with no
 * listener, that error would end the process in the middle of its stop. Lines that cannot be
 * written are dropped.
 */
function outlivingClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.listenerCount('error') > 0) continue;
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EIO' && error.code !== 'EPIPE') throw error;
    });
  }
}

/**
 * Counts SIGINT, SIGTERM and SIGHUP the way every process of the service does: the first signal
 * is a stop, a signal within SAME_STOP_MS of the last one counted is the same one again, and a
 * later one is the operator insisting. Answers the trigger of a stop that comes another way (the
 * parent gone): it starts a stop unless one is under way, and never insists.
 */
export function countStops(on: { stop(reason: string): void; insist(reason: string): void }): (reason: string) => void {
  let last: number | undefined;
  const signal = (reason: string) => {
    const now = Date.now();
    if (last !== undefined && now - last < SAME_STOP_MS) return;
    const first = last === undefined;
    last = now;
    if (first) on.stop(reason);
    else on.insist(reason);
  };
  outlivingClosedOutput();
  for (const name of STOP_SIGNALS) process.on(name, () => signal(name));
  return (reason) => {
    if (last === undefined) signal(reason);
  };
}

/** The notice of a stop: how long it waits, and how to stop waiting. */
export function stopNotice(graceMs: number, inFlight: number | undefined): string {
  const grace = `${Math.round(graceMs / 1000)} s`;
  if (inFlight === undefined) return `stopping; waiting for work in flight (up to ${grace}); press Ctrl-C again to abandon it`;
  const requests = `${inFlight} request${inFlight === 1 ? '' : 's'} in flight`;
  return `stopping, ${requests}; waiting for them up to ${grace}; press Ctrl-C again to abandon them (they are handed back and run again)`;
}

function within<T>(work: Promise<T>, ms: number): Promise<T | void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}

/**
 * How a process of the service stops (docs/RELIABILITY.md, "Stopping the service"). On the first
 * SIGINT or SIGTERM it says so, stops `services` in order (each finishes its work in flight) and
 * then `close` (connections, an embedded PostgreSQL it started), and exits 0. Work still in
 * flight after `graceMs` is handed back (abandon()) and the stop goes on. The operator's second
 * signal hands it back at once and exits 130; a third exits at once. Answers the trigger of a
 * stop that comes another way, such as the supervisor going away (see countStops). `quiet`
 * leaves the notice to another process (a supervisor's child with no requests of its own).
 */
export function stopOnSignals(o: { logger: Logger; graceMs: number; services: Stoppable[]; close(): Promise<void>; quiet?: boolean }): (reason: string) => void {
  const { logger } = o;
  const abandonAll = () => Promise.all(o.services.map((s) => s.abandon?.())).then(() => undefined);
  const counted = o.services.filter((s) => s.inFlight !== undefined);
  const stop = async (reason: string) => {
    const inFlight = counted.length > 0 ? counted.reduce((n, s) => n + s.inFlight!(), 0) : undefined;
    logger.info(o.quiet ? 'stopping' : stopNotice(o.graceMs, inFlight), { signal: reason });
    const grace = setTimeout(() => {
      logger.warn('the grace period is over; handing the work still in flight back', { graceSeconds: o.graceMs / 1000 });
      void abandonAll();
    }, o.graceMs);
    try {
      for (const service of o.services) await service.stop();
      clearTimeout(grace);
      await o.close();
      logger.log(o.quiet ? 'debug' : 'info', stoppedNotice(0));
      process.exit(0);
    } catch (error) {
      logger.error('unclean stop', { error: (error as Error).message });
      process.exit(1);
    }
  };
  let insisted = false;
  return countStops({
    stop: (reason) => void stop(reason),
    insist: (reason) => {
      if (insisted) process.exit(130);
      insisted = true;
      logger.warn('stopping at once; handing the work in flight back', { signal: reason });
      void within(abandonAll(), HAND_BACK_MS).finally(() => {
        logger.log(o.quiet ? 'debug' : 'info', stoppedNotice(130));
        process.exit(130);
      });
    },
  });
}

/**
 * The last line of a stop, said once every process of the stop is gone, with the exit status
 * that follows: 0 after the work in flight finished (or was handed back at the end of the grace
 * period), 130 when it was handed back at once, 1 when processes had to be killed.
 */
export function stoppedNotice(code: number): string {
  if (code === 0) return 'stopped (exit 0)';
  if (code === 130) return 'stopped at once, the work in flight handed back to run again (exit 130)';
  return `stopped, processes that did not stop in time killed (exit ${code})`;
}
