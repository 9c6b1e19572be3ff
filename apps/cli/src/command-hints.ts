import type { Command } from 'commander';

/**
 * An unknown command gets commander's own suggestion when it is a near miss (`lst` -> list).
 * Otherwise it gets the command the word usually means in other CLIs (`ls` -> list,
 * `rm` -> delete, `new` -> create, `add` for the rules' `add`). Failing that, it gets the list
 * of commands it could have been.
 */

/** Words that mean the same command; the first of each group that the command group has is suggested. */
const SAME_MEANING = [
  ['list', 'ls', 'all'],
  ['get', 'show', 'view', 'describe', 'info', 'inspect', 'cat'],
  ['create', 'add', 'new', 'make'],
  ['update', 'edit', 'set', 'change', 'modify'],
  ['delete', 'remove', 'rm', 'del', 'destroy'],
  ['run', 'trigger', 'exec', 'execute', 'start'],
  ['retry', 'replay', 'rerun'],
];

const namesOf = (command: Command) => [command.name(), ...command.aliases()];

/** The group the unknown word was given to: the deepest command the words before it name. */
function groupOf(program: Command, args: string[], unknown: string): Command {
  let group = program;
  for (const word of args) {
    if (word === unknown) break;
    const next = group.commands.find((c) => namesOf(c).includes(word));
    if (next) group = next;
  }
  return group;
}

const pathOf = (command: Command): string => (command.parent ? `${pathOf(command.parent)} ${command.name()}` : command.name());

/** The line to add to commander's "unknown command" error, or '' when it has a suggestion already or is another error. */
export function commandHint(error: string, program: Command, args: string[]): string {
  const unknown = /^error: unknown command '([^']*)'/.exec(error)?.[1];
  if (unknown === undefined || error.includes('(Did you mean')) return '';
  const group = groupOf(program, args, unknown);
  const word = unknown.toLowerCase();
  const meaning = SAME_MEANING.find((words) => words.includes(word));
  const meant = meaning && group.commands.find((c) => namesOf(c).some((name) => meaning.includes(name)));
  if (meant) return `(Did you mean ${meant.name()}?)\n`;
  const commands = group.commands.map((c) => (c.aliases().length ? `${c.name()} (${c.aliases().join(', ')})` : c.name()));
  return `(the commands of ${pathOf(group)} are: ${commands.join(', ')})\n`;
}
