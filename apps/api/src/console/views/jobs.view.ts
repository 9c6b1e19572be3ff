import { JOB_KINDS, JOB_STATES, type JobSummary, type ListEnvelope, type TagCount } from '@cronsvc/contracts';
import type { Outcome } from '@cronsvc/core';
import { scheduleInWords, when } from '../format.js';
import { html, type Html } from '../html.js';
import { paths } from '../paths.js';
import { allowed, badge, page, postButton, type ViewContext } from './layout.js';
import { filterSelect, outcomeStrip, pager } from './list-parts.js';

export interface JobsFilter {
  name?: string;
  state?: string;
  kind?: string;
  tag?: string;
}

/** What the list knows of tags: every tag of the workspace, and how many jobs of the filtered tag each action would change. */
export interface TagsGlance {
  tags: TagCount[];
  tagged: { active: number; paused: number } | null;
}

/** "Pause the 12 active jobs tagged billing?": what the list's buttons and the confirmation page ask. */
export function tagQuestion(action: 'pause' | 'resume', tag: string, n: number): string {
  const jobs = `${n} ${action === 'pause' ? 'active' : 'paused'} job${n === 1 ? '' : 's'}`;
  return `${action === 'pause' ? 'Pause' : 'Resume'} the ${jobs} tagged "${tag}"?`;
}

/** A job's tags as chips, each a link to the jobs with that tag. */
export function tagChips(tags: readonly string[] | undefined): Html {
  if (!tags || tags.length === 0) return html``;
  return html`<ul class="chips" aria-label="Tags">${tags.map((tag) => html`<li><a class="chip" href="${paths.jobsTagged(tag)}">${tag}</a></li>`)}</ul>`;
}

/** Above the jobs of one tag: pause or resume them all, after a question that says how many. */
function tagActions(ctx: ViewContext, tag: string, tagged: { active: number; paused: number }): Html {
  const pause = tagged.active > 0 ? postButton(ctx, paths.tagAction(tag, 'pause'), `Pause ${tagged.active} active`, { confirm: tagQuestion('pause', tag, tagged.active) }) : html``;
  const resume = tagged.paused > 0 ? postButton(ctx, paths.tagAction(tag, 'resume'), `Resume ${tagged.paused} paused`, { confirm: tagQuestion('resume', tag, tagged.paused) }) : html``;
  return html`<div class="actions tag-actions" role="group" aria-label="Jobs tagged ${tag}"><span>Jobs tagged <strong>${tag}</strong>: ${tagged.active} active, ${tagged.paused} paused.</span>${pause}${resume}</div>`;
}

/** The last outcome of a job, linked to its execution. */
function lastStatus(outcomes: Outcome[]): Html {
  const last = outcomes[outcomes.length - 1];
  return last ? html`<a class="badge s-${last.status}" href="${paths.execution(last.id)}">${last.status}</a>` : html`<span class="muted">never run</span>`;
}

/** Slots missed in the last 24 hours; a dash for kinds without a schedule. */
function missedCell(job: JobSummary, missed: Map<string, number>): Html {
  if (job.overlap_policy === undefined) return html`<span class="muted">-</span>`;
  const n = missed.get(job.id) ?? 0;
  return n === 0 ? html`<span class="muted">0</span>` : html`<a class="badge s-failed" href="${paths.job(job.id)}#ledger-heading">${n} missed</a>`;
}

function row(ctx: ViewContext, job: JobSummary, outcomes: Outcome[], missed: Map<string, number>): Html {
  return html`<tr>
<td data-label="Name"><a href="${paths.job(job.id)}">${job.name}</a>${tagChips(job.tags)}</td>
<td data-label="Kind">${job.kind}</td>
<td data-label="State">${badge(job.state)}</td>
<td data-label="Schedule">${scheduleInWords(job)}</td>
<td data-label="Next run">${when(job.next_run_at, ctx.now)}</td>
<td data-label="Last status">${lastStatus(outcomes)}</td>
<td data-label="Last 20">${outcomeStrip(outcomes)}</td>
<td data-label="Missed (24 h)">${missedCell(job, missed)}</td>
</tr>`;
}

/** Jobs: the workspace's jobs with their status at a glance, filtered by name, state and kind. */
export function jobsView(
  ctx: ViewContext,
  list: ListEnvelope<JobSummary>,
  glance: { outcomes: Map<string, Outcome[]>; missed: Map<string, number> },
  filter: JobsFilter,
  tags: TagsGlance,
  error?: string,
): Html {
  const filtered = Boolean(filter.name || filter.state || filter.kind || filter.tag);
  const table =
    list.data.length === 0
      ? html`<p class="empty">${filtered ? 'No job matches these filters.' : allowed(ctx, paths.jobs) ? html`No jobs yet. <a href="${paths.newJob}">Create one</a>.` : 'No jobs yet.'}</p>`
      : html`<table class="list">
<caption class="visually-hidden">Jobs</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">State</th><th scope="col">Schedule</th><th scope="col">Next run</th><th scope="col">Last status</th><th scope="col">Last 20</th><th scope="col">Missed (24 h)</th></tr></thead>
<tbody>${list.data.map((job) => row(ctx, job, glance.outcomes.get(job.id) ?? [], glance.missed))}</tbody>
</table>`;
  return page(
    ctx,
    { title: 'Jobs', section: 'jobs' },
    html`<div class="page-head"><h1>Jobs</h1><div class="end head-actions">${allowed(ctx, paths.importJobs) ? html`<a class="button" href="${paths.importJobs}">Import a crontab</a>` : ''}${allowed(ctx, paths.jobs) ? html`<a class="button primary" href="${paths.newJob}">Create a job</a>` : ''}</div></div>
<form class="filters" method="get" action="${paths.jobs}" role="search" aria-label="Filter jobs"
  hx-get="${paths.jobs}" hx-trigger="submit, input delay:300ms, change" hx-target="#jobs-results" hx-select="#jobs-results" hx-swap="outerHTML" hx-push-url="true" hx-sync="this:replace">
<div class="field"><label for="filter-name">Name</label><input type="search" id="filter-name" name="name" value="${filter.name ?? ''}" autocomplete="off"></div>
${filterSelect('filter-state', 'state', 'State', JOB_STATES, filter.state, 'Any state')}
${filterSelect('filter-kind', 'kind', 'Kind', JOB_KINDS, filter.kind, 'Any kind')}
${filterSelect('filter-tag', 'tag', 'Tag', tags.tags.map((t) => t.tag), filter.tag, 'Any tag')}
<button type="submit">Filter</button>
</form>
<div id="jobs-results">
${error ? html`<p class="alert" role="alert">${error}</p>` : ''}
${filter.tag && tags.tagged ? tagActions(ctx, filter.tag, tags.tagged) : ''}
${table}
${pager(paths.jobs, { ...filter }, list)}
</div>`,
  );
}
