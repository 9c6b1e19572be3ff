import type { Command } from 'commander';
import { JOB_RULE_EVENTS, MONITOR_RULE_EVENTS, type RuleEvent } from '@cronsvc/contracts';
import type { RuleOwner } from '@cronsvc/client';
import { UsageError } from '../errors.js';
import { fetchPages, pageNote, withPaging, type PageFlags } from '../options.js';
import { rulesTable } from '../output/notifications-view.js';
import { done, example, withContext } from './shared.js';

type OwnerFlags = { job?: string; monitor?: string };

const ownerOptions = (command: Command) => command.option('--job <id>', 'a job\'s rules').option('--monitor <id>', 'a monitor\'s rules');

function ownerOf(flags: OwnerFlags): RuleOwner {
  if (Boolean(flags.job) === Boolean(flags.monitor)) throw new UsageError('give one of --job ID and --monitor ID');
  return flags.job ? { job: flags.job } : { monitor: flags.monitor };
}

export function registerRules(program: Command): void {
  const rules = program.command('rules').description('notification rules: which event of a job or monitor goes to which channel');
  example(rules, 'cronsvc rules add --job job_123 --channel chn_123 --event on_failure', 'cronsvc rules add --monitor mon_123 --channel chn_123 --event on_down');

  example(
    ownerOptions(rules.command('add').description('send an event of a job or monitor to a channel'))
      .requiredOption('--channel <id>', 'the channel')
      .requiredOption('--event <event>', `job: ${JOB_RULE_EVENTS.join(', ')}; monitor: ${MONITOR_RULE_EVENTS.join(', ')}`)
      .action(
        withContext(async ({ client, out }, flags: OwnerFlags & { channel: string; event: RuleEvent }) =>
          out.result(await client.rules.add(ownerOf(flags), { channel_id: flags.channel, event: flags.event }), (r) => `${r.id}: ${r.event} -> ${r.channel_id}`),
        ),
      ),
    'cronsvc rules add --job job_123 --channel chn_123 --event on_failure',
  );
  example(
    withPaging(ownerOptions(rules.command('list').description('list the rules of a job or monitor'))).action(
      withContext(async ({ client, out }, flags: OwnerFlags & PageFlags) => {
        const owner = ownerOf(flags);
        const page = await fetchPages((q) => client.rules.list(owner, q), flags);
        out.result(page, (p) => rulesTable(p) + pageNote(p));
      }),
    ),
    'cronsvc rules list --job job_123',
  );
  example(
    ownerOptions(rules.command('remove <rule-id>').description('remove a rule')).action(
      withContext(async ({ client, out }, ruleId: string, flags: OwnerFlags) => out.result(await client.rules.remove(ownerOf(flags), ruleId), done(`removed ${ruleId}`))),
    ),
    'cronsvc rules remove rul_123 --job job_123',
  );
}
