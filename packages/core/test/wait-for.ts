/**
 * Polls `probe` until it returns a value other than undefined/false, or fails after `timeoutMs`.
 * `what` names the condition in the failure; a function is read at the failure, so it can quote
 * what a process printed meanwhile.
 */
export async function waitFor<T>(probe: () => Promise<T | undefined | false> | T | undefined | false, options: { timeoutMs?: number; intervalMs?: number; what?: string | (() => string) } = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value as T;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const what = typeof options.what === 'function' ? options.what() : options.what;
      throw new Error(`timed out waiting for ${what ?? 'condition'}${last ? `: ${(last as Error).message}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 50));
  }
}
