import type { DlqStats, ExecutionSummary, ListEnvelope } from '@cronsvc/contracts';
import { when } from '../format.js';
import { html, type Html } from '../html.js';
import { paths } from '../paths.js';
import { executionRows } from './executions.view.js';
import { page, postButton, type ViewContext } from './layout.js';
import { pager } from './list-parts.js';

function byJob(ctx: ViewContext, stats: DlqStats): Html {
  if (stats.by_job.length === 0) return html``;
  const rows = stats.by_job.map(
    (j) => html`<tr>
<td data-label="Job"><a href="${paths.job(j.job_id)}">${j.job_name}</a></td>
<td data-label="Count">${j.count}</td>
<td data-label="Actions" class="actions-cell"><div class="actions">
${postButton(ctx, paths.replayJobDeadLetters, 'Replay all', { className: 'small', fields: { job_id: j.job_id } })}
${postButton(ctx, paths.purgeDeadLetters, 'Purge', { className: 'small danger', fields: { job_id: j.job_id }, confirm: `Purge the ${j.count} dead letters of "${j.job_name}"? Their execution records stay.` })}
</div></td>
</tr>`,
  );
  return html`<section class="card" aria-labelledby="by-job-heading"><h2 id="by-job-heading">By job</h2>
<table class="list"><caption class="visually-hidden">Dead letters by job</caption>
<thead><tr><th scope="col">Job</th><th scope="col">Count</th><th scope="col">Actions</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

/** Dead letters: failed executions awaiting a replay, per item and per job, and purge. */
export function deadLettersView(ctx: ViewContext, list: ListEnvelope<ExecutionSummary>, stats: DlqStats): Html {
  const items =
    list.data.length === 0
      ? html`<p class="empty">No dead letters: every failed execution has been replayed or removed.</p>`
      : html`<table class="list"><caption class="visually-hidden">Dead letters</caption>${executionRows(ctx, list.data, (e) =>
          html`${postButton(ctx, paths.deadLetterAction(e.id, 'replay'), 'Replay', { className: 'small primary' })}${postButton(ctx, paths.deadLetterAction(e.id, 'remove'), 'Remove', { className: 'small' })}`,
        )}</table>`;
  return page(
    ctx,
    { title: 'Dead letters', section: 'dead-letters' },
    html`<div class="page-head"><h1>Dead letters</h1>${
      stats.total > 0
        ? html`<div class="end">${postButton(ctx, paths.purgeDeadLetters, 'Purge all', { className: 'danger', confirm: `Purge all ${stats.total} dead letters? Their execution records stay.` })}</div>`
        : ''
    }</div>
<p class="muted">Every execution that ends failed lands here. A replay runs it again as a new execution and takes it out; removing or purging only takes it out.</p>
${stats.total > 0 ? html`<p>${stats.total} in all; the oldest since ${when(stats.oldest_dead_lettered_at, ctx.now)}.</p>` : ''}
${byJob(ctx, stats)}
<section aria-labelledby="items-heading"><h2 id="items-heading">Failed executions</h2>${items}${pager(paths.deadLetters, {}, list)}</section>`,
  );
}
