import type { Command } from 'commander';
import type { Secret } from '@cronsvc/contracts';
import type { Output } from '../context.js';
import { UsageError } from '../errors.js';
import { fetchPages, pageNote, withPaging, type PageFlags } from '../options.js';
import { secretsTable } from '../output/notifications-view.js';
import { details } from '../output/table.js';
import { relativeTime } from '../output/time.js';
import { askHidden, readStdin } from '../prompt.js';
import { done, example, withContext } from './shared.js';

/**
 * The value from a prompt that does not echo it, or all of a piped stdin (one trailing newline
 * dropped, as `echo` adds it). --value works too, but leaves the value in the shell's history.
 */
async function secretValue(out: Output, flags: { value?: string }): Promise<string> {
  if (flags.value !== undefined) {
    out.warn('warning: --value leaves the secret in your shell history and the process list; prefer the prompt or stdin');
    return flags.value;
  }
  const value = process.stdin.isTTY ? await askHidden('Value (not shown): ') : (await readStdin()).replace(/\r?\n$/, '');
  if (!value) throw new UsageError('the secret value is empty');
  return value;
}

const secretText = (s: Secret) => details([['ID', s.id], ['Name', s.name], ['Updated', relativeTime(s.updated_at)]]);

export function registerSecrets(program: Command): void {
  const secrets = program.command('secrets').description('workspace secrets, used as {{secret.NAME}} in requests; values are never shown');
  example(secrets, 'cronsvc secrets create API_KEY', 'printf %s "$KEY" | cronsvc secrets create API_KEY');

  const valueOption = ['--value <value>', 'the value on the command line (warned about: prefer the prompt or stdin)'] as const;
  example(
    secrets
      .command('create <name>')
      .description('create a secret; the value comes from a prompt that does not echo, or stdin')
      .option(...valueOption)
      .action(withContext(async ({ client, out }, name: string, flags: { value?: string }) => out.result(await client.secrets.create(name, await secretValue(out, flags)), secretText))),
    'cronsvc secrets create API_KEY',
    'cronsvc secrets create API_KEY < key.txt',
  );

  const list = withPaging(secrets.command('list').description('list secrets by name')).action(
    withContext(async ({ client, out }, flags: PageFlags) => {
      const page = await fetchPages((q) => client.secrets.list(q), flags);
      out.result(page, (p) => secretsTable(p) + pageNote(p));
    }),
  );
  example(list, 'cronsvc secrets list');

  example(
    secrets
      .command('update <id>')
      .description('replace the value of a secret')
      .option(...valueOption)
      .action(withContext(async ({ client, out }, id: string, flags: { value?: string }) => out.result(await client.secrets.update(id, await secretValue(out, flags)), secretText))),
    'cronsvc secrets update sec_123 < new-key.txt',
  );
  example(
    secrets
      .command('delete <id>')
      .description('delete a secret (refused while a notification channel uses it)')
      .action(withContext(async ({ client, out }, id: string) => out.result(await client.secrets.delete(id), done(`deleted ${id}`)))),
    'cronsvc secrets delete sec_123',
  );
}

export function registerSigningKey(program: Command): void {
  const key = program.command('signing-key').description('the key that signs requests to targets (Standard Webhooks)');
  example(key, 'cronsvc signing-key get');
  const keyText = (k: { signing_key: string; created_at: string }) => details([['Signing key', k.signing_key], ['Created', `${k.created_at} (${relativeTime(k.created_at)})`]]);
  example(
    key.command('get').description('show the workspace signing key').action(withContext(async ({ client, out }) => out.result(await client.signingKey.get(), keyText))),
    'cronsvc signing-key get --json | jq -r .signing_key',
  );
  example(
    key
      .command('rotate')
      .description('make a new key; the old one also signs for 24 hours')
      .action(withContext(async ({ client, out }) => out.result(await client.signingKey.rotate(), keyText))),
    'cronsvc signing-key rotate',
  );
}
