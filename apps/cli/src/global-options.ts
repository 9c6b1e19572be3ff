/**
 * --url and --token belong to cronsvc itself, before the command (`cronsvc --url U jobs list`):
 * after some commands --url means something else (the target of `jobs create`). When one is
 * given after a command that does not take it, the error says so and shows the line as it
 * should have been written.
 */
const GLOBAL = /^--(url|token)(=|$)/;

const quoted = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** `args` (without node and the script) with --url and --token, and their values, moved to the front. */
export function globalOptionsFirst(args: string[]): string[] {
  const front: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const match = GLOBAL.exec(args[i]);
    if (!match) rest.push(args[i]);
    else if (match[2] === '=') front.push(args[i]);
    else front.push(args[i], ...args.slice(i + 1, i + 2)), (i += 1);
  }
  return [...front, ...rest];
}

/** The hint to add to commander's "unknown option" error, or '' when the option is not a global one. */
export function globalOptionHint(error: string, args: string[]): string {
  const flag = /unknown option '(--(?:url|token))(?:=[^']*)?'/.exec(error)?.[1];
  if (!flag) return '';
  const line = ['cronsvc', ...globalOptionsFirst(args)].map(quoted).join(' ');
  return `${flag} is an option of cronsvc itself: it goes before the command, as in\n  ${line}\n`;
}
