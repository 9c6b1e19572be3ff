import { isUnavailable } from '../errors/unavailable.js';

/**
 * Runs `work` again while it fails because Postgres cannot be reached (a restart, a connection
 * the server terminated), for up to `forMs`; any other failure, or the last one, is thrown.
 * For writes that record what already happened outside (a request sent): given up, the
 * request would be sent again. `work` must be safe to repeat when a lost connection hid its
 * commit: the recordings it is used for are guarded, and a repeat records nothing.
 */
export async function whileUnavailable<T>(work: () => Promise<T>, options: { forMs: number; onRetry?: (error: Error) => void }): Promise<T> {
  const deadline = Date.now() + options.forMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 1_000)) {
    try {
      return await work();
    } catch (error) {
      if (!isUnavailable(error) || Date.now() + delay > deadline) throw error;
      options.onRetry?.(error as Error);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
