import { Command } from 'commander';
import { registerAsCode, registerTags } from './commands/as-code.js';
import { registerAudit, registerTokens } from './commands/access.js';
import { registerChannels } from './commands/channels.js';
import { registerCompletion } from './commands/completion.js';
import { registerDeliveries } from './commands/deliveries.js';
import { registerDlq } from './commands/dlq.js';
import { registerExecutions } from './commands/executions.js';
import { registerHosts } from './commands/hosts.js';
import { registerJobs } from './commands/jobs.js';
import { registerLogin } from './commands/login.js';
import { registerMonitors, registerPing } from './commands/monitors.js';
import { registerRules } from './commands/rules.js';
import { registerSecrets, registerSigningKey } from './commands/secrets.js';
import { example } from './commands/shared.js';
import { commandHint } from './command-hints.js';
import { globalOptionHint } from './global-options.js';
import { warnOnTokenFlag } from './transport.js';

/** Every command without a subcommand of its own. */
function leaves(command: Command): Command[] {
  return command.commands.length ? command.commands.flatMap(leaves) : [command];
}

export interface ProgramOptions {
  /** Where commander's error texts go: stderr, or (with --json) a list held for the JSON report. */
  writeErr?: (text: string) => void;
}

/** --json given (before any `--`): errors are then reported as JSON (report.ts). */
export function wantsJson(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).includes('--json');
}

/**
 * The whole command tree. Options are positional: --url, --token and --insecure go before the
 * command (`cronsvc --url U jobs list`), since `jobs create --url` is the job's target. --json is
 * also accepted after any command. Every `get` is also `show`.
 */
export function createProgram(options: ProgramOptions = {}): Command {
  const args = process.argv.slice(2);
  const program = new Command('cronsvc')
    .description('Command-line client of cron-service: jobs, executions, the DLQ, secrets, notifications and monitors.')
    .version('0.1.0')
    .enablePositionalOptions()
    .option('--url <url>', 'API base URL (overrides CRONSVC_URL and the login config)')
    .option('--token <token>', 'API token (overrides CRONSVC_TOKEN and the login config; prefer those: a flag stays in your shell history)')
    .option('--insecure', 'allow a plain http:// URL to another machine (the token then crosses the network unencrypted)')
    .option('--json', 'print the API response body as JSON')
    .showHelpAfterError('(add --help for usage)')
    // Before the commands are registered: each copies this output configuration when created.
    .configureOutput({
      writeErr: options.writeErr ?? ((text) => process.stderr.write(text)),
      outputError: (text, write) => write(`${text}${globalOptionHint(text, args)}${commandHint(text, program, args)}`),
    })
    .exitOverride()
    .hook('preAction', (_program, action) => warnOnTokenFlag(action, (text) => process.stderr.write(`${text}\n`)));
  example(program, 'cronsvc login', 'cronsvc jobs list', 'CRONSVC_URL=http://localhost:3000 CRONSVC_TOKEN=dev-token cronsvc executions list --status failed --json');

  registerLogin(program);
  registerJobs(program);
  registerAsCode(program);
  registerTags(program);
  registerExecutions(program);
  registerDlq(program);
  registerSecrets(program);
  registerSigningKey(program);
  registerTokens(program);
  registerAudit(program);
  registerChannels(program);
  registerRules(program);
  registerDeliveries(program);
  registerMonitors(program);
  registerPing(program);
  registerHosts(program);
  registerCompletion(program);

  for (const command of leaves(program)) {
    if (command.name() === 'get') command.alias('show');
    if (command.name() !== 'completion' && !command.options.some((o) => o.long === '--json')) command.option('--json', 'print the API response body as JSON');
  }
  return program;
}
