import { CommanderError } from 'commander';
import { ApiError, NetworkError } from '@cronsvc/client';
import { MissingToken, UsageError } from './errors.js';
import { Interrupted } from './prompt.js';

/** Exit codes: 0 ok, 1 the API or the network failed, 2 the command was used wrongly. */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

export interface ReportOptions {
  /** --json: the error as the API's error envelope, on one line, instead of text. */
  json?: boolean;
  /** What commander wrote to stderr, held back in JSON mode (see createProgram). */
  held?: string;
}

interface Problem {
  exit: number;
  code: string;
  message: string;
  details?: { path: string; message: string }[];
  /** What text mode prints; '' when commander has printed it already. */
  text: string;
}

/** commander's own error text (held back in JSON mode) as one message. */
function commanderMessage(error: CommanderError, held: string): string {
  if (error.code === 'commander.help') {
    const usage = /^Usage: (\S+(?: [a-z][\w-]*)*)/m.exec(held)?.[1] ?? 'cronsvc';
    return `${usage} needs a command: \`${usage} --help\` lists them`;
  }
  const lines = held.split('\n').filter((line) => line.trim() !== '' && line !== '(add --help for usage)');
  return (lines.join('\n') || error.message).replace(/^error: /, '');
}

function problemOf(error: unknown, held: string): Problem | undefined {
  if (error instanceof CommanderError) {
    // Help and --version end this way too (exit 0); commander has printed what it had to say.
    return error.exitCode === 0 ? undefined : { exit: EXIT.usage, code: 'usage_error', message: commanderMessage(error, held), text: '' };
  }
  if (error instanceof UsageError) return { exit: EXIT.usage, code: 'usage_error', message: error.message, text: `error: ${error.message}\n` };
  if (error instanceof MissingToken) return { exit: EXIT.failed, code: 'unauthorized', message: error.message, text: `error: ${error.message}\n` };
  if (error instanceof ApiError) {
    // A validation message already names every field; print only the details it does not hold.
    const more = error.details.map((d) => `${d.path}: ${d.message}`).filter((line) => !error.message.includes(line));
    const text = [`error: ${error.code}: ${error.message} (HTTP ${error.status})`, ...more.map((line) => `  ${line}`)].join('\n');
    return { exit: EXIT.failed, code: error.code, message: error.message, details: error.details.length ? error.details : undefined, text: `${text}\n` };
  }
  if (error instanceof NetworkError) {
    const message = `cannot reach ${error.url}: ${error.message}`;
    return { exit: EXIT.failed, code: 'network_error', message, text: `error: ${message}\n` };
  }
  const message = (error as Error)?.message ?? String(error);
  return { exit: EXIT.failed, code: 'cli_error', message, text: `error: ${message}\n` };
}

/**
 * Says what went wrong on `write` (stderr) and returns the exit code for it. With --json it is
 * one line of JSON in the API's error envelope: the API's own body for an API error, and codes
 * of the CLI's own for the rest (`usage_error`, `network_error`, `unauthorized` without a token).
 */
export function report(error: unknown, write: (text: string) => void, options: ReportOptions = {}): number {
  if (error instanceof Interrupted) return EXIT.interrupted;
  const problem = problemOf(error, options.held ?? '');
  if (!problem) return EXIT.ok;
  if (options.json) {
    write(`${JSON.stringify({ error: { code: problem.code, message: problem.message, ...(problem.details ? { details: problem.details } : {}) } })}\n`);
  } else if (problem.text) {
    write(problem.text);
  }
  return problem.exit;
}
