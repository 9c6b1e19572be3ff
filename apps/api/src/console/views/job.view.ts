import { JOB_RULE_EVENTS, type Channel, type ExecutionSummary, type Fire, type Job, type JobStats, type Rule } from '@cronsvc/contracts';
import type { Outcome } from '@cronsvc/core';
import { duration, scheduleInWords, when } from '../format.js';
import { html, type Html } from '../html.js';
import type { FieldErrors, FormValues } from '../form-parsing.js';
import { paths } from '../paths.js';
import type { StepsEditor } from '../step-form.js';
import { badgeSection } from './badge-copy.view.js';
import { fireStrip } from './fire-strip.view.js';
import { statsSection } from './job-stats.view.js';
import { jobForm } from './job-form.view.js';
import { ruleState } from './rule-state.view.js';
import { allowed, badge, csrfField, page, postButton, type ViewContext } from './layout.js';
import { tagChips } from './jobs.view.js';

export interface JobPage {
  job: Job;
  fires: Date[];
  /** The recent fires of the ledger; null for kinds without a schedule. */
  ledger: Fire[] | null;
  executions: ExecutionSummary[];
  rules: Rule[];
  channels: Channel[];
  /** The job's statistics over the window asked for, and its last outcomes, oldest first. */
  stats: JobStats;
  outcomes: Outcome[];
}

/** A job form as shown: the values, the API's messages by field, and the step list. */
export interface JobForm {
  values: FormValues;
  errors: FieldErrors;
  steps: StepsEditor;
}

function nextFires(ctx: ViewContext, job: Job, fires: Date[]): Html {
  if (fires.length > 0) return html`<h3>Next ${fires.length === 1 ? 'fire' : `${fires.length} fires`} (UTC)</h3><ol class="fires">${fires.map((d) => html`<li>${when(d, ctx.now)}</li>`)}</ol>`;
  const why =
    job.state === 'active' ? 'It has no schedule of its own: it runs when it is run now or triggered.' : `Nothing is scheduled while the job is ${job.state}.`;
  return html`<p class="muted">${why}</p>`;
}

function details(ctx: ViewContext, job: Job): Html {
  const target = job.request
    ? html`<dt>Request</dt><dd><code>${job.request.method}</code> <span class="mono">${job.request.url}</span></dd>`
    : html`<dt>Steps</dt><dd>${(job.steps ?? []).map((s) => html`<code>${s.id}</code> (${s.type}) `)}</dd>`;
  return html`<dl class="facts">
<dt>Id</dt><dd><code>${job.id}</code></dd>
<dt>Kind</dt><dd>${job.kind}</dd>
${target}
${job.trigger_url ? html`<dt>Trigger URL</dt><dd class="mono">${job.trigger_url}</dd>` : ''}
<dt>Retries</dt><dd>up to ${job.retry_policy.max_attempts} attempts</dd>
<dt>Concurrency</dt><dd>${job.max_concurrent_executions === 0 ? 'unlimited' : `at most ${job.max_concurrent_executions} at a time`}</dd>
${job.overlap_policy ? html`<dt>Fire policies</dt><dd>overlap ${job.overlap_policy}, catch-up ${job.catch_up_policy}, jitter ${job.jitter_seconds} s</dd>` : ''}
<dt>Created</dt><dd>${when(job.created_at, ctx.now)}</dd>
<dt>Updated</dt><dd>${when(job.updated_at, ctx.now)}</dd>
</dl>`;
}

function recentExecutions(ctx: ViewContext, job: Job, executions: ExecutionSummary[]): Html {
  if (executions.length === 0) return html`<p class="muted">No executions yet.</p>`;
  const rows = executions.map(
    (e) => html`<tr>
<td data-label="Status"><a class="badge s-${e.status}" href="${paths.execution(e.id)}">${e.status}</a></td>
<td data-label="Scheduled for">${when(e.scheduled_for, ctx.now)}</td>
<td data-label="Source">${e.source}</td>
<td data-label="Attempts">${e.attempt_count}</td>
<td data-label="Duration">${duration(e.duration_ms)}</td>
<td data-label="Error class">${e.error_class ?? ''}</td>
</tr>`,
  );
  return html`<table class="list">
<caption class="visually-hidden">Recent executions</caption>
<thead><tr><th scope="col">Status</th><th scope="col">Scheduled for</th><th scope="col">Source</th><th scope="col">Attempts</th><th scope="col">Duration</th><th scope="col">Error class</th></tr></thead>
<tbody>${rows}</tbody>
</table>
<p><a href="${`${paths.executions}?${new URLSearchParams({ job_name: job.name })}`}">See every run of this job</a></p>`;
}

function rulesSection(ctx: ViewContext, job: Job, rules: Rule[], channels: Channel[]): Html {
  const channelName = new Map(channels.map((c) => [c.id, c.name]));
  const list =
    rules.length === 0
      ? html`<p class="muted">No rules: this job sends no notifications.</p>`
      : html`<ul class="plain">${rules.map(
          (r) =>
            html`<li class="actions"><span><strong>${r.event}</strong> to ${channelName.get(r.channel_id) ?? r.channel_id}</span>${ruleState(ctx, r, paths.job(job.id))}${postButton(
              ctx,
              paths.ruleDelete({ kind: 'job', id: job.id }, r.id),
              'Remove',
              { className: 'small' },
            )}</li>`,
        )}</ul>`;
  const form = !allowed(ctx, paths.jobRules(job.id))
    ? html``
    : channels.length === 0
      ? html`<p class="muted">Add a channel through the API or the CLI to send notifications.</p>`
      : html`<form class="inline-form" method="post" action="${paths.jobRules(job.id)}">
${csrfField(ctx.csrf)}
<div class="field"><label for="rule-channel">Channel</label><select id="rule-channel" name="channel_id">${channels.map((c) => html`<option value="${c.id}">${c.name} (${c.type})</option>`)}</select></div>
<div class="field"><label for="rule-event">Event</label><select id="rule-event" name="event">${JOB_RULE_EVENTS.map((e) => html`<option value="${e}">${e}</option>`)}</select></div>
<div class="field"><label for="rule-after">After consecutive failures</label><input id="rule-after" name="after_consecutive_failures" type="number" min="1" max="100" value="1" aria-describedby="rule-options-hint"></div>
<div class="field"><label for="rule-realert">Remind every (minutes)</label><input id="rule-realert" name="realert_after_minutes" type="number" min="0" max="10080" value="0" aria-describedby="rule-options-hint"></div>
<button type="submit">Add rule</button>
<p class="muted" id="rule-options-hint">For on_failure: the first message comes with the Nth failure in a row; while it stays broken, again after this many minutes (0: every failure; empty: once per outage). Add an on_recovery rule to hear when it is over.</p>
</form>`;
  return html`${list}${form}`;
}

/** A GET form with one button: a way somewhere that looks like the actions beside it, with no script. */
const getButton = (action: string, label: string) => html`<form method="get" action="${action}"><button type="submit">${label}</button></form>`;

/** A job: schedule in words and its next fires, the actions, recent executions and rules; editing is a page of its own. */
export function jobView(ctx: ViewContext, view: JobPage): Html {
  const { job } = view;
  const pauseOrResume =
    job.state === 'paused'
      ? postButton(ctx, paths.jobAction(job.id, 'resume'), 'Resume')
      : job.state === 'active'
        ? postButton(ctx, paths.jobAction(job.id, 'pause'), 'Pause')
        : html``;
  return page(
    ctx,
    { title: job.name, section: 'jobs' },
    html`<div class="page-head"><h1>${job.name}</h1>${badge(job.state)}${tagChips(job.tags)}</div>
<div class="actions">
${postButton(ctx, paths.jobAction(job.id, 'run-now'), 'Run now', { className: 'primary' })}
${pauseOrResume}
${allowed(ctx, paths.job(job.id)) ? getButton(paths.jobEdit(job.id), 'Edit') : ''}
${postButton(ctx, paths.jobAction(job.id, 'delete'), 'Delete', { className: 'danger', confirm: `Delete the job "${job.name}" with its executions and rules? This cannot be undone.` })}
</div>
<div class="grid">
<section class="card" aria-labelledby="schedule-heading"><h2 id="schedule-heading">Schedule</h2><p><strong>${scheduleInWords(job)}</strong></p>${nextFires(ctx, job, view.fires)}</section>
<section class="card" aria-labelledby="details-heading"><h2 id="details-heading">Details</h2>${details(ctx, job)}</section>
</div>
${statsSection(job.id, view.stats, view.outcomes)}
${badgeSection(job.name, job.badge_url)}
${view.ledger ? html`<section class="card" aria-labelledby="ledger-heading"><h2 id="ledger-heading">Recent fires</h2>${fireStrip(view.ledger, ctx.now)}</section>` : ''}
<section class="card" aria-labelledby="recent-heading"><h2 id="recent-heading">Recent executions</h2>${recentExecutions(ctx, job, view.executions)}</section>
<section class="card" aria-labelledby="rules-heading"><h2 id="rules-heading">Notification rules</h2>${rulesSection(ctx, job, view.rules, view.channels)}</section>`,
  );
}

/** Editing a job: every field of it, on a page of its own, with the way back. */
export function editJobView(ctx: ViewContext, job: Job, form: JobForm): Html {
  return page(
    ctx,
    { title: `Edit ${job.name}`, section: 'jobs' },
    html`<p class="back"><a href="${paths.job(job.id)}">Back to ${job.name}</a></p>
<h1>Edit ${job.name}</h1>
${jobForm(ctx, { action: paths.job(job.id), submitLabel: 'Save changes', mode: 'edit', ...form, cancel: paths.job(job.id) })}`,
  );
}

/** New job: the same form, empty but for the API's defaults. */
export function newJobView(ctx: ViewContext, form: JobForm): Html {
  return page(
    ctx,
    { title: 'New job', section: 'new-job' },
    html`<h1>New job</h1>
${jobForm(ctx, { action: paths.jobs, submitLabel: 'Create job', mode: 'create', ...form })}`,
  );
}
