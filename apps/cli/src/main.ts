import { CommanderError } from 'commander';
import { ApiError, NetworkError } from '@cronsvc/client';
import { UsageError } from './errors.js';
import { Interrupted } from './prompt.js';
import { createProgram } from './program.js';

/** Exit codes: 0 ok, 1 the API or the network failed, 2 the command was used wrongly. */
const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

function report(error: unknown): number {
  if (error instanceof CommanderError) {
    // Help and --version end this way too; commander has printed what it had to say.
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof UsageError) {
    process.stderr.write(`error: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof ApiError) {
    process.stderr.write(`error: ${error.code}: ${error.message} (HTTP ${error.status})\n`);
    for (const detail of error.details) process.stderr.write(`  ${detail.path}: ${detail.message}\n`);
    return EXIT.failed;
  }
  if (error instanceof NetworkError) {
    process.stderr.write(`error: cannot reach ${error.url}: ${error.message}\n`);
    return EXIT.failed;
  }
  if (error instanceof Interrupted) return 130;
  process.stderr.write(`error: ${(error as Error)?.message ?? String(error)}\n`);
  return EXIT.failed;
}

const program = createProgram();
try {
  // Subcommands copy these settings when they are created, so each is set on the root first.
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = report(error);
}
