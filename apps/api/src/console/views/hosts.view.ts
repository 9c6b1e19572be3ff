import type { HostLimit } from '@cronsvc/contracts';
import { when } from '../format.js';
import { html, type Html } from '../html.js';
import type { FieldErrors, FormValues } from '../form-parsing.js';
import { paths } from '../paths.js';
import { errorSummary, field, fieldId, type FieldSpec } from './fields.js';
import { csrfField, page, postButton, type ViewContext } from './layout.js';

const HOST: FieldSpec = { name: 'host', label: 'Host', required: true, hint: "The URL's host name, without scheme or port (api.example.com)." };
const CONCURRENCY: FieldSpec = { name: 'max_concurrency', label: 'Max concurrency', type: 'number', hint: 'Requests in flight at once, 1 to 1000; empty for no limit.' };
const RATE: FieldSpec = { name: 'max_per_second', label: 'Max per second', type: 'number', hint: 'Requests started per second, 0.1 to 10000; empty for no limit.' };
const LABELS = { host: 'Host', max_concurrency: 'Max concurrency', max_per_second: 'Max per second' };

const limit = (value: number | null) => (value === null ? html`<span class="muted">none</span>` : html`${value}`);

/** Host limits: every host with a budget or a cool-down running, set a host's limits, remove them. */
export function hostsView(ctx: ViewContext, hosts: HostLimit[], form: { values: FormValues; errors: FieldErrors }): Html {
  const table =
    hosts.length === 0
      ? html`<p class="empty">No host has limits, and none asked to wait.</p>`
      : html`<table class="list"><caption class="visually-hidden">Host limits</caption>
<thead><tr><th scope="col">Host</th><th scope="col">Max concurrency</th><th scope="col">Max per second</th><th scope="col">Cool-down</th><th scope="col">Actions</th></tr></thead>
<tbody>${hosts.map(
          (h) => html`<tr>
<td data-label="Host"><code>${h.host}</code></td>
<td data-label="Max concurrency">${limit(h.max_concurrency)}</td>
<td data-label="Max per second">${limit(h.max_per_second)}</td>
<td data-label="Cool-down">${h.cooldown_until ? html`until ${when(h.cooldown_until, ctx.now)}` : html`<span class="muted">none</span>`}</td>
<td data-label="Actions" class="actions-cell"><div class="actions">${postButton(ctx, paths.hostDelete, 'Remove', {
            className: 'small danger',
            fields: { host: h.host },
            confirm: `Remove the limits of ${h.host} and any cool-down?`,
          })}</div></td>
</tr>`,
        )}</tbody></table>`;
  return page(
    ctx,
    { title: 'Host limits', section: 'hosts' },
    html`<h1>Host limits</h1>
<p class="muted">Every job and workflow step of the workspace calling a host keeps within its limits, on every executor. A request held back waits: it is not an attempt and spends no retry. A host answering 429 or 503 with Retry-After is left alone until then (its cool-down), limits or not.</p>
${table}
<section class="card" aria-labelledby="set-host-heading"><h2 id="set-host-heading">Set a host's limits</h2>
<p class="muted">Replaces the host's limits; a limit left empty is none.</p>
${errorSummary('The limits were not set.', form.errors, LABELS, (name) => fieldId({ name, idPrefix: 'h' }))}
<form method="post" action="${paths.hosts}" novalidate>${csrfField(ctx.csrf)}
<div class="grid">${field({ ...HOST, idPrefix: 'h' }, form.values.host, form.errors.host)}${field({ ...CONCURRENCY, idPrefix: 'h' }, form.values.max_concurrency, form.errors.max_concurrency)}${field(
      { ...RATE, idPrefix: 'h' },
      form.values.max_per_second,
      form.errors.max_per_second,
    )}</div>
<div class="actions"><button type="submit" class="primary">Set limits</button></div>
</form></section>`,
  );
}
