import { escapeHtml, page } from './approval-page.js';

/**
 * The page of a snooze link (docs/NOTIFICATIONS.md, "Snooze"): GET shows it and never snoozes
 * (mail scanners and link previews follow links); its buttons POST.
 */

const LABELS: [number, string][] = [[60, 'Snooze 1 h'], [1440, 'Snooze 1 day'], [10080, 'Snooze 7 days']];

export function renderSnoozePage(view: { target: string; event: string; snoozedUntil: string | null }, action: string): string {
  const now = view.snoozedUntil ? `<p class="muted">Snoozed until ${escapeHtml(view.snoozedUntil.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}.</p>` : '';
  const forms = LABELS.map(
    ([minutes, label]) => `<form method="post" action="${escapeHtml(`${action}?minutes=${minutes}`)}"><button class="reject" type="submit">${label}</button></form>`,
  ).join('');
  return page('Snooze notifications', `<div class="card">
<h2>Snooze notifications</h2>
<h1>${escapeHtml(view.target)}</h1>
<p>The rule sending <strong>${escapeHtml(view.event)}</strong> notifications delivers nothing while snoozed; its first message after says how many it held back.</p>
${now}
<div class="actions">${forms}</div>
</div>`);
}

export function renderSnoozedPage(view: { target: string; snoozedUntil: string }): string {
  return page('Snoozed', `<div class="card"><p class="result">Snoozed</p>
<p>Notifications of ${escapeHtml(view.target)} are snoozed until ${escapeHtml(view.snoozedUntil.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}.</p></div>`);
}
