export interface RepeatOptions {
  /**
   * Asked after a failure: a promise means "run again when it resolves" (the database is back,
   * docs/adr/033-noticing-the-database-is-back.md), and whoever answers it reports the failure,
   * so onError is not called; undefined means the failure is onError's, and the next run comes
   * after the interval.
   */
  untilRetry?: (error: unknown) => Promise<void> | undefined;
}

/**
 * Runs `task` again and again, never overlapping itself: at once when it answers `true` (more
 * work is waiting), `intervalMs` after it otherwise, and after a failure, which goes to `onError`
 * (or, see RepeatOptions, when `untilRetry` says). The first run starts now. The returned stop()
 * ends the loop and waits for a run in progress.
 */
export function repeat(
  name: string,
  task: () => Promise<unknown>,
  intervalMs: number,
  onError: (name: string, error: unknown) => void,
  options: RepeatOptions = {},
): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = task().then(
      (more) => {
        if (!stopped) timer = setTimeout(tick, more === true ? 0 : intervalMs);
      },
      (error) => {
        const retry = options.untilRetry?.(error);
        if (retry) {
          void retry.then(() => !stopped && tick());
          return;
        }
        onError(name, error);
        if (!stopped) timer = setTimeout(tick, intervalMs);
      },
    );
  };
  tick();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
