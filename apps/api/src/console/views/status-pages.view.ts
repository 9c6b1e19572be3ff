import type { StatusPage } from '@cronsvc/contracts';
import { when } from '../format.js';
import type { FieldErrors, FormValues } from '../form-parsing.js';
import { html, type Html } from '../html.js';
import { paths } from '../paths.js';
import { errorSummary, field, fieldId, type FieldSpec } from './fields.js';
import { allowed, csrfField, page, postButton, type ViewContext } from './layout.js';

const NAME: FieldSpec = { name: 'name', label: 'Name', required: true, hint: 'Shown as the title of the public page.', idPrefix: 'sp' };

/** What the form offers to show: the workspace's jobs and monitors by name. */
export interface StatusPageChoices {
  jobs: { id: string; name: string }[];
  monitors: { id: string; name: string }[];
}

/** What the form holds: the name and the ids ticked. */
export interface StatusPageForm {
  values: FormValues;
  jobIds: string[];
  monitorIds: string[];
  errors: FieldErrors;
}

const count = (n: number, what: string) => `${String(n)} ${what}${n === 1 ? '' : 's'}`;

export const emptyStatusPageForm = (): StatusPageForm => ({ values: {}, jobIds: [], monitorIds: [], errors: {} });

/** The public URL, in a read-only field with a Copy button. */
function urlCopy(id: string, p: StatusPage): Html {
  return html`<div class="copy-row"><label class="visually-hidden" for="${id}">Public URL of ${p.name}</label><input type="text" id="${id}" class="mono" value="${p.public_url}" readonly><button type="button" class="small" data-copy="${id}">Copy</button></div>`;
}

function checkboxes(legend: string, name: string, options: { id: string; name: string }[], ticked: string[], empty: string): Html {
  const chosen = new Set(ticked);
  return html`<fieldset class="checks"><legend>${legend}</legend>${
    options.length === 0
      ? html`<p class="muted">${empty}</p>`
      : options.map((o, i) => html`<div class="check"><input type="checkbox" id="sp-${name}-${String(i)}" name="${name}" value="${o.id}"${chosen.has(o.id) ? html` checked` : ''}><label for="sp-${name}-${String(i)}">${o.name}</label></div>`)
  }</fieldset>`;
}

function statusPageForm(ctx: ViewContext, action: string, submit: string, choices: StatusPageChoices, form: StatusPageForm, failed: string): Html {
  return html`${errorSummary(failed, form.errors, { name: 'Name' }, (name) => fieldId({ name, idPrefix: 'sp' }))}
<form method="post" action="${action}" novalidate>${csrfField(ctx.csrf)}
${field(NAME, form.values.name, form.errors.name)}
${checkboxes('Jobs to show', 'job_ids', choices.jobs, form.jobIds, 'No jobs in this workspace.')}
${checkboxes('Monitors to show', 'monitor_ids', choices.monitors, form.monitorIds, 'No monitors in this workspace.')}
<div class="actions"><button type="submit" class="primary">${submit}</button></div>
</form>`;
}

const deleteButton = (ctx: ViewContext, p: StatusPage, small: boolean) =>
  postButton(ctx, paths.statusPageDelete(p.id), 'Delete', { className: small ? 'small danger' : 'danger', confirm: `Delete the status page "${p.name}"? Its public URL stops working.` });

/** Status pages: each with its public URL to copy; a form for a new one. */
export function statusPagesView(ctx: ViewContext, pages: StatusPage[], choices: StatusPageChoices, form: StatusPageForm): Html {
  const table =
    pages.length === 0
      ? html`<p class="empty">No status pages yet.</p>`
      : html`<table class="list"><caption class="visually-hidden">Status pages</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Shows</th><th scope="col">Public URL</th><th scope="col">Updated</th><th scope="col">Actions</th></tr></thead>
<tbody>${pages.map(
          (p, i) => html`<tr>
<td data-label="Name"><a href="${paths.statusPage(p.id)}">${p.name}</a></td>
<td data-label="Shows">${count(p.job_ids.length, 'job')}, ${count(p.monitor_ids.length, 'monitor')}</td>
<td data-label="Public URL">${urlCopy(`status-url-${String(i)}`, p)}</td>
<td data-label="Updated">${when(p.updated_at, ctx.now)}</td>
<td data-label="Actions" class="actions-cell"><div class="actions">${allowed(ctx, paths.statusPage(p.id)) ? html`<form method="get" action="${paths.statusPage(p.id)}"><button type="submit" class="small">Edit</button></form>` : ''}${deleteButton(ctx, p, true)}</div></td>
</tr>`,
        )}</tbody></table>`;
  return page(
    ctx,
    { title: 'Status pages', section: 'status-pages' },
    html`<h1>Status pages</h1>
<p class="muted">A status page shows the jobs and monitors you choose, with their state and 90 daily bars, to anyone with its URL; it shows nothing else of the workspace.</p>
${table}
${allowed(ctx, paths.statusPages) ? html`<section class="card" aria-labelledby="new-status-page-heading"><h2 id="new-status-page-heading">New status page</h2>
${statusPageForm(ctx, paths.statusPages, 'Create status page', choices, form, 'The status page was not created.')}</section>` : ''}`,
  );
}

/** One status page: its public URL, and the form to rename it or change what it shows. */
export function statusPageView(ctx: ViewContext, p: StatusPage, choices: StatusPageChoices, form: StatusPageForm): Html {
  return page(
    ctx,
    { title: `Status page ${p.name}`, section: 'status-pages' },
    html`<h1>Status page ${p.name}</h1>
<p class="muted">Created ${when(p.created_at, ctx.now)}; changed ${when(p.updated_at, ctx.now)}.</p>
${urlCopy('status-url', p)}
${allowed(ctx, paths.statusPage(p.id)) ? html`<section class="card" aria-labelledby="edit-status-page-heading"><h2 id="edit-status-page-heading">Edit</h2>
${statusPageForm(ctx, paths.statusPage(p.id), 'Save status page', choices, form, 'The status page was not saved.')}</section>` : ''}
<div class="actions">${deleteButton(ctx, p, false)}<a href="${paths.statusPages}">Back to the status pages</a></div>`,
  );
}
