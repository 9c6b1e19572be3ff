/**
 * Runs `task` again and again, never overlapping itself: at once when it answers `true` (more
 * work is waiting), `intervalMs` after it otherwise, and after a failure, which goes to `onError`.
 * The first run starts now. The returned stop() ends the loop and waits for a run in progress.
 */
export function repeat(name: string, task: () => Promise<unknown>, intervalMs: number, onError: (name: string, error: unknown) => void): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = task().then(
      (more) => {
        if (!stopped) timer = setTimeout(tick, more === true ? 0 : intervalMs);
      },
      (error) => {
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
