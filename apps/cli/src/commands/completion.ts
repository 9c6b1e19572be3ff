import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { example } from './shared.js';

const words = (command: Command) => command.commands.flatMap((c) => [c.name(), ...c.aliases()]).join(' ');
const flags = (command: Command) => command.options.flatMap((o) => [o.long, o.short].filter(Boolean)).concat('--help').join(' ');

/**
 * A bash completion function written from the command tree itself, so it cannot drift from
 * the commands: the group, then its command, then that command's options.
 */
export function bashCompletion(program: Command): string {
  const cases = program.commands.flatMap((group) => {
    const lines = [`    "${group.name()}") words="${group.commands.length ? words(group) : flags(group)}" ;;`];
    for (const command of group.commands) {
      const keys = [command.name(), ...command.aliases()].map((name) => `"${group.name()} ${name}"`);
      lines.push(`    ${keys.join('|')}) words="${flags(command)}" ;;`);
    }
    return lines;
  });
  return `# cronsvc completion for bash: eval "$(cronsvc completion bash)" or save it in /etc/bash_completion.d/cronsvc
_cronsvc() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" words key
  local -a args=()
  local i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) ;; *) args+=("\${COMP_WORDS[i]}") ;; esac
  done
  key="\${args[*]:0:2}"
  case "$key" in
    "") words="${words(program)} ${flags(program)}" ;;
${cases.join('\n')}
    *) words="--help" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _cronsvc cronsvc
`;
}

/** zsh runs the bash function through bashcompinit. */
export const zshCompletion = (program: Command) => `# cronsvc completion for zsh: eval "$(cronsvc completion zsh)" in ~/.zshrc
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(program).split('\n').slice(1).join('\n')}`;

export function registerCompletion(program: Command): void {
  example(
    program
      .command('completion <shell>')
      .description('print a completion script for bash or zsh')
      .action((shell: string) => {
        if (shell !== 'bash' && shell !== 'zsh') throw new UsageError('completion supports bash and zsh');
        process.stdout.write(shell === 'bash' ? bashCompletion(program) : zshCompletion(program));
      }),
    'eval "$(cronsvc completion bash)"',
    'echo \'eval "$(cronsvc completion zsh)"\' >> ~/.zshrc',
  );
}
