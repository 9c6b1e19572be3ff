import { CommanderError } from 'commander';
import { ApiError, NetworkError } from '@cronsvc/client';
import { UsageError } from './errors.js';
import { Interrupted } from './prompt.js';

/** Exit codes: 0 ok, 1 the API or the network failed, 2 the command was used wrongly. */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

/** Says what went wrong on `write` (stderr) and returns the exit code for it. */
export function report(error: unknown, write: (text: string) => void): number {
  if (error instanceof CommanderError) {
    // Help and --version end this way too; commander has printed what it had to say.
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof UsageError) {
    write(`error: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof ApiError) {
    write(`error: ${error.code}: ${error.message} (HTTP ${error.status})\n`);
    // A validation message already names every field; print only the details it does not hold.
    for (const detail of error.details) {
      const line = `${detail.path}: ${detail.message}`;
      if (!error.message.includes(line)) write(`  ${line}\n`);
    }
    return EXIT.failed;
  }
  if (error instanceof NetworkError) {
    write(`error: cannot reach ${error.url}: ${error.message}\n`);
    return EXIT.failed;
  }
  if (error instanceof Interrupted) return EXIT.interrupted;
  write(`error: ${(error as Error)?.message ?? String(error)}\n`);
  return EXIT.failed;
}
