import type { Command } from 'commander';
import { contextOf, type Context } from '../context.js';

/** An action that gets the command's context first: the positional arguments, then the options. */
export function withContext<A extends unknown[]>(fn: (ctx: Context, ...args: A) => Promise<void>) {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    await fn(await contextOf(command), ...(args.slice(0, -1) as A));
  };
}

/** Every command's --help ends with examples. */
export function example(command: Command, ...lines: string[]): Command {
  return command.addHelpText('after', `\nExample${lines.length > 1 ? 's' : ''}:\n${lines.map((l) => `  $ ${l}`).join('\n')}`);
}

export const done = (what: string) => () => what;
