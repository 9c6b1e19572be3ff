import type { Rule, RuleEvent } from '@cronsvc/contracts';
import type { Deps } from '../deps/deps.js';
import { serializeRule } from './rules.js';

export interface ChannelRule {
  id: string;
  channelId: string;
  event: RuleEvent;
  job: { id: string; name: string } | null;
  monitor: { id: string; name: string } | null;
  /** The rule as the API shows it: options, snooze state, held-back count. */
  rule: Rule;
}

/** The rules that send to each of `channelIds`, with the name of the job or monitor each hangs on. */
export async function listChannelRules(deps: Pick<Deps, 'db' | 'clock'>, workspaceId: string, channelIds: string[]): Promise<ChannelRule[]> {
  const rules = await deps.db.notificationRule.findMany({
    where: { workspaceId, channelId: { in: channelIds } },
    include: { job: { select: { id: true, name: true } }, monitor: { select: { id: true, name: true } } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  const now = deps.clock.now();
  return rules.map((r) => ({ id: r.id, channelId: r.channelId, event: r.event as RuleEvent, job: r.job, monitor: r.monitor, rule: serializeRule(r, now) }));
}
