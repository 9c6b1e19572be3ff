import type { Rule } from '@cronsvc/contracts';
import { html, type Html } from '../html.js';
import { paths } from '../paths.js';
import { postButton, type ViewContext } from './layout.js';

// A snooze "until unsnoozed" ends in the year 9999 (core's UNTIL_UNSNOOZED).
const untilUnsnoozed = (iso: string) => iso.startsWith('9999-');
const when = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');

/** "after 3 failures, again every 60 min" for a job's on_failure rule; null for the others. */
export function ruleOptionsText(rule: Rule): string | null {
  if (rule.event !== 'on_failure' || rule.job_id === null) return null;
  const again = rule.realert_after_minutes === null ? 'once per streak' : rule.realert_after_minutes === 0 ? 'every failure' : `again every ${rule.realert_after_minutes} min`;
  return `after ${rule.after_consecutive_failures} consecutive failure${rule.after_consecutive_failures === 1 ? '' : 's'}, ${again}`;
}

/**
 * A rule's options, snooze state and held-back count, with its Snooze (1 h, 1 day, until
 * unsnoozed) or Unsnooze buttons, which come back to `back`.
 */
export function ruleState(ctx: Pick<ViewContext, 'csrf'>, rule: Rule, back: string): Html {
  const options = ruleOptionsText(rule);
  const snoozed = rule.snoozed_until
    ? html`<span class="badge s-paused">snoozed ${untilUnsnoozed(rule.snoozed_until) ? 'until unsnoozed' : `until ${when(rule.snoozed_until)}`}</span>`
    : '';
  const held = rule.held_back > 0 ? html`<span class="muted">${rule.held_back} held back</span>` : '';
  const button = (minutes: string, label: string) => postButton(ctx, paths.ruleSnooze(rule.id, 'snooze'), label, { className: 'small', fields: { minutes, back } });
  const buttons = rule.snoozed_until
    ? postButton(ctx, paths.ruleSnooze(rule.id, 'unsnooze'), 'Unsnooze', { className: 'small', fields: { back } })
    : html`${button('60', 'Snooze 1 h')}${button('1440', 'Snooze 1 day')}${button('until', 'Snooze until unsnoozed')}`;
  return html`${options ? html`<span class="muted">${options}</span>` : ''}${snoozed}${held}${buttons}`;
}
