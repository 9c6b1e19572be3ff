import { EXECUTION_SORTS, EXECUTION_STATUSES, type ExecutionSummary, type ListEnvelope } from '@cronsvc/contracts';
import { duration, when } from '../format.js';
import { html, type Html } from '../html.js';
import { paths } from '../paths.js';
import { page, type ViewContext } from './layout.js';
import { filterSelect, pager } from './list-parts.js';

/** The filters of GET /v1/executions, as the form holds them. */
export interface ExecutionsFilter {
  status?: string;
  job_name?: string;
  from?: string;
  to?: string;
  sort?: string;
  order?: string;
}

export function executionRows(ctx: ViewContext, executions: ExecutionSummary[], actions?: (e: ExecutionSummary) => Html): Html {
  const rows = executions.map(
    (e) => html`<tr>
<td data-label="Status"><a class="badge s-${e.status}" href="${paths.execution(e.id)}">${e.status}</a></td>
<td data-label="Job"><a href="${paths.job(e.job_id)}">${e.job_name}</a></td>
<td data-label="Source">${e.source}</td>
<td data-label="Scheduled for">${when(e.scheduled_for, ctx.now)}</td>
<td data-label="Duration">${duration(e.duration_ms)}</td>
<td data-label="Attempts">${e.attempt_count}</td>
<td data-label="Error class">${e.error_class ?? ''}</td>
${actions ? html`<td data-label="Actions" class="actions-cell"><div class="actions">${actions(e)}</div></td>` : ''}
</tr>`,
  );
  return html`<thead><tr><th scope="col">Status</th><th scope="col">Job</th><th scope="col">Source</th><th scope="col">Scheduled for</th><th scope="col">Duration</th><th scope="col">Attempts</th><th scope="col">Error class</th>${
    actions ? html`<th scope="col">Actions</th>` : ''
  }</tr></thead>
<tbody>${rows}</tbody>`;
}

/** Executions: every run of the workspace, with the API's filters. */
export function executionsView(ctx: ViewContext, list: ListEnvelope<ExecutionSummary>, filter: ExecutionsFilter, error?: string): Html {
  const table =
    list.data.length === 0
      ? html`<p class="empty">No execution matches these filters.</p>`
      : html`<table class="list"><caption class="visually-hidden">Executions</caption>${executionRows(ctx, list.data)}</table>`;
  return page(
    ctx,
    { title: 'Executions', section: 'executions' },
    html`<h1>Executions</h1>
<form class="filters" method="get" action="${paths.executions}" role="search" aria-label="Filter executions">
${filterSelect('filter-status', 'status', 'Status', EXECUTION_STATUSES, filter.status, 'Any status')}
<div class="field"><label for="filter-job-name">Job name</label><input type="search" id="filter-job-name" name="job_name" value="${filter.job_name ?? ''}" autocomplete="off"></div>
<div class="field"><label for="filter-from">From</label><input type="text" id="filter-from" name="from" value="${filter.from ?? ''}" placeholder="2026-01-01T00:00:00Z" aria-describedby="filter-time-hint" autocomplete="off"></div>
<div class="field"><label for="filter-to">To</label><input type="text" id="filter-to" name="to" value="${filter.to ?? ''}" placeholder="2026-01-31T23:59:59Z" aria-describedby="filter-time-hint" autocomplete="off"></div>
${filterSelect('filter-sort', 'sort', 'Sort by', EXECUTION_SORTS.filter((s) => s !== 'scheduled_for'), filter.sort, 'scheduled_for')}
${filterSelect('filter-order', 'order', 'Order', ['asc'], filter.order, 'desc')}
<button type="submit">Filter</button>
<span class="hint" id="filter-time-hint">From and To are ISO 8601 times (UTC), both included, on the sort field.</span>
</form>
${error ? html`<p class="alert" role="alert">${error}</p>` : ''}
${table}
${pager(paths.executions, { ...filter }, list)}`,
  );
}
