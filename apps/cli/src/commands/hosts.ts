import { InvalidArgumentError, type Command } from 'commander';
import type { HostLimit } from '@cronsvc/contracts';
import { UsageError } from '../errors.js';
import { fetchPages, int, pageNote, withPaging, type PageFlags } from '../options.js';
import { hostLimitsTable } from '../output/notifications-view.js';
import { details } from '../output/table.js';
import { done, example, withContext } from './shared.js';

/** An option parser for numbers with a fraction (`--max-per-second 0.5`). */
const decimal = (value: string): number => {
  if (!/^\d+(\.\d+)?$/.test(value)) throw new InvalidArgumentError('not a number.');
  return Number(value);
};

const orNone = (value: number | null) => (value === null ? 'none' : String(value));

const hostText = (h: HostLimit) =>
  details([['Host', h.host], ['Max concurrency', orNone(h.max_concurrency)], ['Max per second', orNone(h.max_per_second)], ['Cool-down until', h.cooldown_until ?? 'none']]);

export function registerHosts(program: Command): void {
  const hosts = program.command('hosts').description("budgets per target host, shared by the workspace's jobs and workflow steps, and Retry-After cool-downs");
  example(hosts, 'cronsvc hosts set api.example.com --max-concurrency 5 --max-per-second 20', 'cronsvc hosts list');

  const list = withPaging(hosts.command('list').description('list hosts with limits or a cool-down running')).action(
    withContext(async ({ client, out }, flags: PageFlags) => {
      const page = await fetchPages((q) => client.hostLimits.list(q), flags);
      out.result(page, (p) => hostLimitsTable(p) + pageNote(p));
    }),
  );
  example(list, 'cronsvc hosts list');

  example(
    hosts
      .command('set <host>')
      .description("set a host's limits (its URL host name, without port); a limit not given is none")
      .option('--max-concurrency <n>', 'requests in flight at once, 1 to 1000', int)
      .option('--max-per-second <rate>', 'requests started per second, 0.1 to 10000', decimal)
      .action(
        withContext(async ({ client, out }, host: string, flags: { maxConcurrency?: number; maxPerSecond?: number }) => {
          if (flags.maxConcurrency === undefined && flags.maxPerSecond === undefined) throw new UsageError('give --max-concurrency, --max-per-second or both');
          out.result(await client.hostLimits.set(host, { max_concurrency: flags.maxConcurrency, max_per_second: flags.maxPerSecond }), hostText);
        }),
      ),
    'cronsvc hosts set api.example.com --max-concurrency 5',
    'cronsvc hosts set api.example.com --max-per-second 0.5',
  );
  example(
    hosts.command('get <host>').description("show a host's limits and cool-down").action(withContext(async ({ client, out }, host: string) => out.result(await client.hostLimits.get(host), hostText))),
    'cronsvc hosts get api.example.com',
  );
  example(
    hosts
      .command('delete <host>')
      .description("remove a host's limits and any cool-down")
      .action(withContext(async ({ client, out }, host: string) => out.result(await client.hostLimits.delete(host), done(`deleted ${host}`)))),
    'cronsvc hosts delete api.example.com',
  );
}
