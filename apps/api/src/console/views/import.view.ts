import type { ImportResult } from '@cronsvc/contracts';
import { scheduleInWords } from '../format.js';
import { html, type Html } from '../html.js';
import { paths } from '../paths.js';
import { errorSummary, field, fieldId, type FieldSpec } from './fields.js';
import { csrfField, page, type ViewContext } from './layout.js';

const F = {
  crontab: {
    name: 'crontab',
    label: 'Crontab',
    type: 'textarea',
    tall: true,
    required: true,
    placeholder: '*/15 * * * * curl -fsS https://example.com/tick > /dev/null',
    hint: 'One job a line: a schedule, then a URL or a curl or wget command. # lines are skipped. At most 1000 lines.',
  },
  default_url: { name: 'default_url', label: 'Default URL', type: 'url', placeholder: 'https://example.com/run', hint: 'Called by lines that run another command or none (optional).' },
} satisfies Record<string, FieldSpec>;

const LABELS = { crontab: F.crontab.label, default_url: F.default_url.label };

export interface ImportForm {
  values: Record<string, string>;
  errors: Record<string, string[]>;
}

function outcome(result: ImportResult): Html {
  const created = result.created.length
    ? html`<h2>Created (${result.created.length})</h2>
<ul class="imported">${result.created.map((job) => html`<li><a href="${paths.job(job.id)}">${job.name}</a> <span class="muted">${scheduleInWords(job)}</span></li>`)}</ul>`
    : html`<p class="empty">No job was created.</p>`;
  const refused = result.errors.length
    ? html`<h2>Refused (${result.errors.length})</h2>
<ul class="refused">${result.errors.map((e) => html`<li>Line ${e.line}: <code>${e.text}</code><br>${e.message}</li>`)}</ul>`
    : '';
  const notes = result.notes.length ? html`<div class="note" role="note"><strong>Note</strong>${result.notes.map((note) => html`<p>${note}</p>`)}</div>` : '';
  return html`<section aria-labelledby="import-outcome"><h2 id="import-outcome" class="visually-hidden">What the import did</h2>${notes}${created}${refused}</section>`;
}

/** Import a crontab: the form, and after a post the jobs it made, the lines it refused and its notes. */
export function importView(ctx: ViewContext, form: ImportForm, result?: ImportResult): Html {
  const f = (spec: FieldSpec) => field(spec, form.values[spec.name], form.errors[spec.name]);
  return page(
    ctx,
    { title: 'Import a crontab', section: 'jobs' },
    html`<h1>Import a crontab</h1>
${result ? outcome(result) : ''}
${errorSummary('Nothing was imported.', form.errors, LABELS, (name) => fieldId({ name }))}
<form class="stacked" method="post" action="${paths.importJobs}" novalidate>
${csrfField(ctx.csrf)}
${f(F.crontab)}
${f(F.default_url)}
<p class="hint">Each line becomes a cron job, named by its schedule and URL without the query string. Schedules run in UTC.</p>
<div class="actions"><button type="submit" class="primary">Import</button></div>
</form>`,
  );
}
