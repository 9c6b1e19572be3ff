const INTERVAL_MS = 2000;
const CLEAR = '\x1b[2J\x1b[H';

/**
 * Loads and draws every 2 s until Ctrl-C: on a terminal the screen is cleared and redrawn in
 * place, elsewhere each drawing follows the last. A failed load is shown and retried.
 */
export async function watch<T>(load: () => Promise<T>, draw: (value: T) => string): Promise<void> {
  const tty = Boolean(process.stdout.isTTY);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => {
      stopped = true;
      clearTimeout(timer);
      resolve();
    });
    const tick = async () => {
      let text: string;
      try {
        text = draw(await load());
      } catch (error) {
        text = `error: ${(error as Error).message}`;
      }
      if (stopped) return;
      const stamp = `Every 2s, ${new Date().toISOString()} (Ctrl-C to stop)`;
      process.stdout.write(`${tty ? CLEAR : ''}${stamp}\n\n${text}\n${tty ? '' : '\n'}`);
      timer = setTimeout(tick, INTERVAL_MS);
    };
    void tick();
  });
}
