import type { Monitor } from '@cronsvc/contracts';
import { when } from '../format.js';
import { html, type Html } from '../html.js';
import { paths } from '../paths.js';
import type { FieldErrors, FormValues } from '../form-parsing.js';
import { badgeCopy } from './badge-copy.view.js';
import { errorSummary, field, fieldId, type FieldSpec } from './fields.js';
import { allowed, badge, csrfField, page, postButton, type ViewContext } from './layout.js';

const FIELDS: FieldSpec[] = [
  { name: 'name', label: 'Name', required: true },
  { name: 'expected_interval_sec', label: 'Expected interval (seconds)', type: 'number', required: true, hint: 'How often the watched thing pings: 1 to 31536000.' },
  { name: 'grace_sec', label: 'Grace (seconds)', type: 'number', hint: 'Extra time before it counts as down; default 0.' },
];
const LABELS = Object.fromEntries(FIELDS.map((f) => [f.name, f.label]));

/** Seconds in the largest whole unit ("every 5 min", "every 1 day"). */
function interval(seconds: number): string {
  for (const [size, unit] of [[86_400, 'day'], [3_600, 'h'], [60, 'min']] as const) {
    if (seconds % size === 0) return `${seconds / size} ${unit}${unit === 'day' && seconds / size !== 1 ? 's' : ''}`;
  }
  return `${seconds} s`;
}

function row(ctx: ViewContext, m: Monitor): Html {
  const copyId = `ping-${m.id}`;
  return html`<tr>
<td data-label="Name">${m.name}</td>
<td data-label="State">${badge(m.state)}</td>
<td data-label="Last ping">${when(m.last_ping_at, ctx.now)}</td>
<td data-label="Expected">${m.schedule ? html`cron <code>${m.schedule.cron}</code> UTC` : `every ${interval(m.expected_interval_sec ?? 0)}`}${m.grace_sec > 0 ? html` <span class="muted">+ ${interval(m.grace_sec)} grace</span>` : ''}</td>
<td data-label="Down after">${when(m.next_due_at, ctx.now)}</td>
<td data-label="Ping URL"><div class="copy-row"><label class="visually-hidden" for="${copyId}">Ping URL of ${m.name}</label><input type="text" id="${copyId}" class="mono" value="${m.ping_url}" readonly><button type="button" class="small" data-copy="${copyId}">Copy</button></div></td>
<td data-label="Badge">${badgeCopy(`badge-${m.id}`, m.name, m.badge_url)}</td>
<td data-label="Actions" class="actions-cell"><div class="actions">
${m.state === 'paused' ? postButton(ctx, paths.monitorAction(m.id, 'resume'), 'Resume', { className: 'small' }) : postButton(ctx, paths.monitorAction(m.id, 'pause'), 'Pause', { className: 'small' })}
${postButton(ctx, paths.monitorAction(m.id, 'delete'), 'Delete', { className: 'small danger', confirm: `Delete the monitor "${m.name}"?` })}
</div></td>
</tr>`;
}

/** Monitors: heartbeat monitors with their state, last ping and ping URL; create, pause, resume, delete. */
export function monitorsView(ctx: ViewContext, monitors: Monitor[], form: { values: FormValues; errors: FieldErrors }): Html {
  const table =
    monitors.length === 0
      ? html`<p class="empty">No monitors yet. A monitor expects a ping (GET or POST to its URL) at least every interval and goes down when one is late.</p>`
      : html`<table class="list"><caption class="visually-hidden">Monitors</caption>
<thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Last ping</th><th scope="col">Expected</th><th scope="col">Down after</th><th scope="col">Ping URL</th><th scope="col">Badge</th><th scope="col">Actions</th></tr></thead>
<tbody>${monitors.map((m) => row(ctx, m))}</tbody></table>`;
  return page(
    ctx,
    { title: 'Monitors', section: 'monitors' },
    html`<h1>Monitors</h1>
${table}
${allowed(ctx, paths.monitors) ? html`<section class="card" aria-labelledby="new-monitor-heading"><h2 id="new-monitor-heading">New monitor</h2>
${errorSummary('The monitor was not created.', form.errors, LABELS, (name) => fieldId({ name, idPrefix: 'm' }))}
<form method="post" action="${paths.monitors}" novalidate>${csrfField(ctx.csrf)}
<div class="grid">${FIELDS.map((f) => field({ ...f, idPrefix: 'm' }, form.values[f.name], form.errors[f.name]))}</div>
<div class="actions"><button type="submit" class="primary">Create monitor</button></div>
</form></section>` : ''}`,
  );
}
