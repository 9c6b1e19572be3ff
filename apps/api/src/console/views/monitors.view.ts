import { MONITOR_RULE_EVENTS, type Channel, type Monitor, type MonitorPing, type Rule } from '@cronsvc/contracts';
import { cronInWords, duration, utc, when } from '../format.js';
import { html, type Html } from '../html.js';
import { paths } from '../paths.js';
import type { FieldErrors, FormValues } from '../form-parsing.js';
import { badgeCopy } from './badge-copy.view.js';
import { errorSummary, field, fieldId, type FieldSpec } from './fields.js';
import { allowed, badge, csrfField, page, postButton, type ViewContext } from './layout.js';

/** The fields of the create and edit forms; a monitor has an interval or a cron schedule. */
const FIELDS: FieldSpec[] = [
  { name: 'name', label: 'Name', required: true },
  { name: 'expected_interval_sec', label: 'Expected interval (seconds)', type: 'number', hint: 'How often the watched thing pings: 1 to 31536000. Leave empty to use a cron schedule.' },
  { name: 'cron', label: 'Cron schedule (UTC)', placeholder: '0 3 * * *', hint: 'Or: a ping is expected at each fire of this 5-field cron expression, in UTC.' },
  { name: 'grace_sec', label: 'Grace (seconds)', type: 'number', hint: 'Extra time after the expected ping before it counts as down; default 0.' },
  { name: 'max_duration_sec', label: 'Max run duration (seconds)', type: 'number', hint: 'Optional, 1 to 86400: down when a run that pinged /start has not succeeded within it.' },
];
const LABELS = Object.fromEntries(FIELDS.map((f) => [f.name, f.label]));
/** The form field each of the API's problem paths belongs to. */
export const MONITOR_FORM_FIELDS: Record<string, string> = {
  name: 'name', expected_interval_sec: 'expected_interval_sec', 'schedule.cron': 'cron', 'schedule.timezone': 'cron', grace_sec: 'grace_sec', max_duration_sec: 'max_duration_sec',
};

/** Seconds in the largest whole unit ("5 min", "1 day"). */
function interval(seconds: number): string {
  for (const [size, unit] of [[86_400, 'day'], [3_600, 'h'], [60, 'min']] as const) {
    if (seconds % size === 0) return `${seconds / size} ${unit}${unit === 'day' && seconds / size !== 1 ? 's' : ''}`;
  }
  return `${seconds} s`;
}

const expectation = (m: Monitor): Html =>
  m.schedule ? html`<code>${m.schedule.cron}</code> <span class="muted">${cronInWords(m.schedule.cron)}</span>` : html`every ${interval(m.expected_interval_sec ?? 0)}`;

function row(ctx: ViewContext, m: Monitor): Html {
  const copyId = `ping-${m.id}`;
  return html`<tr>
<td data-label="Name"><a href="${paths.monitor(m.id)}">${m.name}</a></td>
<td data-label="State">${badge(m.state)}</td>
<td data-label="Last ping">${when(m.last_ping_at, ctx.now)}</td>
<td data-label="Expected">${expectation(m)}${m.grace_sec > 0 ? html` <span class="muted">+ ${interval(m.grace_sec)} grace</span>` : ''}</td>
<td data-label="Next expected">${when(m.next_expected_at, ctx.now)}</td>
<td data-label="Ping URL"><div class="copy-row"><label class="visually-hidden" for="${copyId}">Ping URL of ${m.name}</label><input type="text" id="${copyId}" class="mono" value="${m.ping_url}" readonly><button type="button" class="small" data-copy="${copyId}">Copy</button></div></td>
<td data-label="Badge">${badgeCopy(`badge-${m.id}`, m.name, m.badge_url)}</td>
<td data-label="Actions" class="actions-cell"><div class="actions">
${m.state === 'paused' ? postButton(ctx, paths.monitorAction(m.id, 'resume'), 'Resume', { className: 'small' }) : postButton(ctx, paths.monitorAction(m.id, 'pause'), 'Pause', { className: 'small' })}
${postButton(ctx, paths.monitorAction(m.id, 'delete'), 'Delete', { className: 'small danger', confirm: `Delete the monitor "${m.name}"?` })}
</div></td>
</tr>`;
}

function monitorForm(ctx: ViewContext, form: { values: FormValues; errors: FieldErrors }, options: { action: string; idPrefix: string; failed: string; submit: string }): Html {
  return html`${errorSummary(options.failed, form.errors, LABELS, (name) => fieldId({ name, idPrefix: options.idPrefix }))}
<form method="post" action="${options.action}" novalidate>${csrfField(ctx.csrf)}
<div class="grid">${FIELDS.map((f) => field({ ...f, idPrefix: options.idPrefix }, form.values[f.name], form.errors[f.name]))}</div>
<div class="actions"><button type="submit" class="primary">${options.submit}</button></div>
</form>`;
}

/** Monitors: heartbeat monitors with their state, last ping and next expected ping; create, pause, resume, delete. */
export function monitorsView(ctx: ViewContext, monitors: Monitor[], form: { values: FormValues; errors: FieldErrors }): Html {
  const table =
    monitors.length === 0
      ? html`<p class="empty">No monitors yet. A monitor expects a ping (GET or POST to its URL) every interval or at each fire of a cron schedule, and goes down when one is late or a run reports a failure.</p>`
      : html`<table class="list"><caption class="visually-hidden">Monitors</caption>
<thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Last ping</th><th scope="col">Expected</th><th scope="col">Next expected</th><th scope="col">Ping URL</th><th scope="col">Badge</th><th scope="col">Actions</th></tr></thead>
<tbody>${monitors.map((m) => row(ctx, m))}</tbody></table>`;
  return page(
    ctx,
    { title: 'Monitors', section: 'monitors' },
    html`<h1>Monitors</h1>
${table}
${allowed(ctx, paths.monitors) ? html`<section class="card" aria-labelledby="new-monitor-heading"><h2 id="new-monitor-heading">New monitor</h2>
${monitorForm(ctx, form, { action: paths.monitors, idPrefix: 'm', failed: 'The monitor was not created.', submit: 'Create monitor' })}
</section>` : ''}`,
  );
}

export interface MonitorPage {
  monitor: Monitor;
  pings: { data: MonitorPing[]; total: number };
  rules: Rule[];
  channels: Channel[];
  form: { values: FormValues; errors: FieldErrors };
}

/** The form's values for a monitor as it is. */
export function monitorValues(m: Monitor): FormValues {
  return {
    name: m.name,
    expected_interval_sec: m.expected_interval_sec === null ? '' : String(m.expected_interval_sec),
    cron: m.schedule?.cron ?? '',
    grace_sec: String(m.grace_sec),
    max_duration_sec: m.max_duration_sec === null ? '' : String(m.max_duration_sec),
  };
}

/** The lines people paste, with this monitor's URL: after a command, around it with its exit status, and a systemd timer. */
export function pingSnippets(url: string, cron = '0 3 * * *'): { title: string; text: string }[] {
  const curl = 'curl -fsS -m 10 --retry 5';
  return [
    { title: 'Crontab: ping when the command succeeds', text: `${cron} /usr/local/bin/backup.sh && ${curl} ${url}` },
    {
      title: 'Crontab: start, then the exit status (non-zero is a failure, told at once)',
      text: `${cron} ${curl} ${url}/start ; /usr/local/bin/backup.sh ; ${curl} ${url}/$?`,
    },
    {
      title: 'systemd: backup.service and backup.timer',
      text: `# /etc/systemd/system/backup.service
[Service]
Type=oneshot
ExecStartPre=-/usr/bin/${curl} ${url}/start
ExecStart=/usr/local/bin/backup.sh
ExecStopPost=/bin/sh -c 'if [ "$$SERVICE_RESULT" = success ]; then s=0; else s=fail; fi; ${curl} ${url}/$$s'

# /etc/systemd/system/backup.timer
[Timer]
OnCalendar=*-*-* 03:00:00 UTC
Persistent=true

[Install]
WantedBy=timers.target`,
    },
  ];
}

function pingsTable(ctx: ViewContext, pings: MonitorPage['pings']): Html {
  if (pings.data.length === 0) return html`<p class="muted">No pings yet.</p>`;
  const kindBadge = (kind: string) => badge(kind);
  const rows = pings.data.map(
    (p, i) => html`<tr>
<td data-label="Kind">${kindBadge(p.kind)}</td>
<td data-label="Received">${when(p.received_at, ctx.now)}</td>
<td data-label="Duration">${duration(p.duration_ms)}</td>
<td data-label="Exit status">${p.exit_status === null ? '' : String(p.exit_status)}</td>
<td data-label="From"><span class="mono">${p.source_ip ?? ''}</span>${p.user_agent ? html` <span class="muted">${p.user_agent}</span>` : ''}</td>
<td data-label="Body">${
      p.body_preview === null
        ? html`<span class="muted">none</span>`
        : html`<details><summary>Show body<span class="visually-hidden"> of ping ${String(i + 1)}</span></summary><pre class="preview" tabindex="0">${p.body_preview}</pre></details>`
    }</td>
</tr>`,
  );
  return html`<table class="list"><caption class="visually-hidden">Pings, newest first</caption>
<thead><tr><th scope="col">Kind</th><th scope="col">Received</th><th scope="col">Duration</th><th scope="col">Exit status</th><th scope="col">From</th><th scope="col">Body</th></tr></thead>
<tbody>${rows}</tbody></table>
<p class="muted">The newest ${String(pings.data.length)} of ${String(pings.total)} kept (the last 1,000 pings are kept).</p>`;
}

function rulesSection(ctx: ViewContext, m: Monitor, rules: Rule[], channels: Channel[]): Html {
  const channelName = new Map(channels.map((c) => [c.id, c.name]));
  const list =
    rules.length === 0
      ? html`<p class="muted">No rules: this monitor sends no notifications.</p>`
      : html`<ul class="plain">${rules.map(
          (r) =>
            html`<li class="actions"><span><strong>${r.event}</strong> to ${channelName.get(r.channel_id) ?? r.channel_id}</span>${postButton(
              ctx,
              paths.ruleDelete({ kind: 'monitor', id: m.id }, r.id),
              'Remove',
              { className: 'small', fields: { back: paths.monitor(m.id) } },
            )}</li>`,
        )}</ul>`;
  const form = !allowed(ctx, paths.monitorRules(m.id))
    ? html``
    : channels.length === 0
      ? html`<p class="muted">Add a channel through the API or the CLI to send notifications.</p>`
      : html`<form class="inline-form" method="post" action="${paths.monitorRules(m.id)}">
${csrfField(ctx.csrf)}
<div class="field"><label for="rule-channel">Channel</label><select id="rule-channel" name="channel_id">${channels.map((c) => html`<option value="${c.id}">${c.name} (${c.type})</option>`)}</select></div>
<div class="field"><label for="rule-event">Event</label><select id="rule-event" name="event">${MONITOR_RULE_EVENTS.map((e) => html`<option value="${e}">${e}</option>`)}</select></div>
<button type="submit">Add rule</button>
</form>`;
  return html`${list}${form}`;
}

/** A monitor: its state and schedule, the ping URL with the lines to paste, its pings, its rules, and its settings to edit. */
export function monitorView(ctx: ViewContext, view: MonitorPage): Html {
  const m = view.monitor;
  const url = m.ping_url ?? '';
  const snippets = pingSnippets(url || 'https://…/v1/ping/<token>', m.schedule?.cron);
  return page(
    ctx,
    { title: m.name, section: 'monitors' },
    html`<div class="page-head"><h1>${m.name}</h1>${badge(m.state)}</div>
<div class="actions">
${m.state === 'paused' ? postButton(ctx, paths.monitorAction(m.id, 'resume'), 'Resume', { fields: { back: paths.monitor(m.id) } }) : postButton(ctx, paths.monitorAction(m.id, 'pause'), 'Pause', { fields: { back: paths.monitor(m.id) } })}
${postButton(ctx, paths.monitorAction(m.id, 'delete'), 'Delete', { className: 'danger', confirm: `Delete the monitor "${m.name}" with its rules and pings?` })}
</div>
<div class="grid">
<section class="card" aria-labelledby="schedule-heading"><h2 id="schedule-heading">Schedule</h2>
<dl class="facts">
<dt>Expected</dt><dd>${expectation(m)}</dd>
<dt>Grace</dt><dd>${m.grace_sec > 0 ? interval(m.grace_sec) : 'none'}</dd>
<dt>Max run duration</dt><dd>${m.max_duration_sec === null ? 'none' : interval(m.max_duration_sec)}</dd>
<dt>Next expected</dt><dd>${when(m.next_expected_at, ctx.now)}</dd>
<dt>Down after</dt><dd>${when(m.next_due_at, ctx.now)}</dd>
<dt>Last ping</dt><dd>${when(m.last_ping_at, ctx.now)}</dd>
<dt>Last run took</dt><dd>${m.last_duration_ms === null ? html`<span class="muted">not measured</span>` : duration(m.last_duration_ms)}</dd>
<dt>Created</dt><dd>${utc(m.created_at)}</dd>
</dl></section>
<section class="card" aria-labelledby="ping-heading"><h2 id="ping-heading">Ping URL</h2>
<div class="copy-row"><label class="visually-hidden" for="ping-url">Ping URL of ${m.name}</label><input type="text" id="ping-url" class="mono" value="${url}" readonly><button type="button" class="small" data-copy="ping-url">Copy</button></div>
<p class="muted">GET or POST it: <code>/start</code> when a run begins, <code>/fail</code> or <code>/1</code>…<code>/255</code> when it fails, <code>/0</code> or the URL alone when it succeeds. The first 10 KiB of a POST body are kept with the ping.</p>
${snippets.map((s) => html`<h3>${s.title}</h3><pre class="preview" tabindex="0">${s.text}</pre>`)}
</section>
</div>
<section class="card" aria-labelledby="pings-heading"><h2 id="pings-heading">Pings</h2>${pingsTable(ctx, view.pings)}</section>
<section class="card" aria-labelledby="rules-heading"><h2 id="rules-heading">Notification rules</h2>${rulesSection(ctx, m, view.rules, view.channels)}</section>
${allowed(ctx, paths.monitor(m.id)) ? html`<section class="card" aria-labelledby="edit-heading"><h2 id="edit-heading">Settings</h2>
${monitorForm(ctx, view.form, { action: paths.monitor(m.id), idPrefix: 'e', failed: 'The monitor was not saved.', submit: 'Save monitor' })}
</section>` : ''}`,
  );
}
