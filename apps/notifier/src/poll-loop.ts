/**
 * Runs `task` again and again, never overlapping itself: at once when it reports more work,
 * after `idleMs` otherwise (or after an error). The returned stop() waits for a run in progress.
 */
export function pollLoop(name: string, task: () => Promise<boolean>, idleMs: number, onError: (name: string, error: unknown) => void): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = task()
      .then((more) => more, (error) => (onError(name, error), false))
      .then((more) => {
        if (!stopped) timer = setTimeout(tick, more ? 0 : idleMs);
      });
  };
  tick();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
