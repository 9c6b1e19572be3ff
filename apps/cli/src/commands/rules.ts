import type { Command } from 'commander';
import { JOB_RULE_EVENTS, MONITOR_RULE_EVENTS, type RuleEvent } from '@cronsvc/contracts';
import type { RuleOwner } from '@cronsvc/client';
import { UsageError } from '../errors.js';
import { fetchPages, int, pageNote, withPaging, type PageFlags } from '../options.js';
import { ruleDetails, rulesTable } from '../output/notifications-view.js';
import { done, example, withContext } from './shared.js';

type OwnerFlags = { job?: string; monitor?: string };

const ownerOptions = (command: Command) => command.option('--job <id>', 'a job\'s rules').option('--monitor <id>', 'a monitor\'s rules');

/** `--realert-minutes`: a whole number, or "never" (kept as the word: commander takes a null from a parser for no value). */
function realert(value: string): number | 'never' {
  return value === 'never' ? value : int(value);
}

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
      .option('--after-failures <n>', 'on_failure: alert at the Nth consecutive failure (1 to 100, default 1)', int)
      .option('--realert-minutes <n>', 'on_failure: minutes between messages of one streak (0 every failure, the default; "never" for one per streak)', realert)
      .action(
        withContext(async ({ client, out }, flags: OwnerFlags & { channel: string; event: RuleEvent; afterFailures?: number; realertMinutes?: number | 'never' }) => {
          const body = {
            channel_id: flags.channel,
            event: flags.event,
            ...(flags.afterFailures === undefined ? {} : { after_consecutive_failures: flags.afterFailures }),
            ...(flags.realertMinutes === undefined ? {} : { realert_after_minutes: flags.realertMinutes === 'never' ? null : flags.realertMinutes }),
          };
          out.result(await client.rules.add(ownerOf(flags), body), (r) => `${r.id}: ${r.event} -> ${r.channel_id}`);
        }),
      ),
    'cronsvc rules add --job job_123 --channel chn_123 --event on_failure --after-failures 3 --realert-minutes 60',
  );
  example(
    rules.command('get <rule-id>').description('show a rule with its options, snooze state and held-back count').action(
      withContext(async ({ client, out }, ruleId: string) => out.result(await client.rules.get(ruleId), ruleDetails)),
    ),
    'cronsvc rules get rul_123',
  );
  example(
    rules
      .command('snooze <rule-id>')
      .description('deliver nothing from this rule for a while (its next message says how many it held back)')
      .requiredOption('--minutes <n>', 'how long, 1 to 10080', int)
      .action(
        withContext(async ({ client, out }, ruleId: string, flags: { minutes: number }) =>
          out.result(await client.rules.snooze(ruleId, { minutes: flags.minutes }), (r) => `${r.id} snoozed until ${r.snoozed_until}`),
        ),
      ),
    'cronsvc rules snooze rul_123 --minutes 60',
  );
  example(
    rules.command('unsnooze <rule-id>').description('end a rule\'s snooze').action(
      withContext(async ({ client, out }, ruleId: string) => out.result(await client.rules.unsnooze(ruleId), (r) => `${r.id} is not snoozed`)),
    ),
    'cronsvc rules unsnooze rul_123',
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
