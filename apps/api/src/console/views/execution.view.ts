import type { Attempt, AttemptRequest, Execution, StepExecution } from '@cronsvc/contracts';
import { duration, when } from '../format.js';
import { html, type Html } from '../html.js';
import { paths } from '../paths.js';
import { badge, page, postButton, type ViewContext } from './layout.js';

const UNFINISHED = new Set(['queued', 'running', 'waiting']);

/** A JSON value as the API holds it, readable; previews and payloads are stored masked. */
const jsonBlock = (value: unknown) => html`<pre class="preview" tabindex="0">${JSON.stringify(value, null, 2)}</pre>`;

const hasValue = (value: unknown) => value !== null && value !== undefined && !(typeof value === 'object' && Object.keys(value as object).length === 0);

const requestLine = (r: AttemptRequest) => html`<p class="request-line"><code>${r.method}</code> <span class="mono">${r.url}</span></p>`;

/** A request as its attempt recorded it: headers and body (after its method and URL unless `line` is false); secrets show as [secret]. */
function sentRequest(r: AttemptRequest, line = true): Html {
  // By name: the record keeps no order (jsonb orders keys its own way).
  const names = Object.keys(r.headers).sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' }));
  const headers = names.map((name) => `${name}: ${r.headers[name]}`).join('\n');
  return html`${line ? requestLine(r) : ''}
<p class="label">Headers</p>${headers ? html`<pre class="preview" tabindex="0">${headers}</pre>` : html`<p class="muted">None.</p>`}
<p class="label">Body</p>${r.body === null ? html`<p class="muted">No body.</p>` : html`<pre class="preview" tabindex="0">${r.body}</pre>`}
${r.bodyTruncated ? html`<p class="muted">The body's first 64 KiB; it was longer.</p>` : ''}`;
}

const NOT_RECORDED = 'nothing was sent (see the error), or the attempt was made before requests were recorded';

function attemptItem(ctx: ViewContext, a: Attempt): Html {
  const ok = a.status === 'SUCCESS';
  return html`<li class="${ok ? 'ok' : 'bad'}">
<strong>Attempt ${a.number}</strong> · ${a.status}${a.statusCode !== null ? html` · HTTP <span class="mono">${a.statusCode}</span>` : ''} · ${duration(a.latencyMs)}${
    a.errorClass ? html` · <span class="mono">${a.errorClass}</span>` : ''
  }
<div class="muted">${when(a.startedAt, ctx.now)}</div>
${a.budget_wait_ms > 0 ? html`<div class="muted">waited ${duration(a.budget_wait_ms)} for the host budget</div>` : ''}
${a.request ? requestLine(a.request) : ''}
${a.errorMessage ? html`<div>${a.errorMessage}</div>` : ''}
${a.request ? html`<details><summary>Request sent</summary>${sentRequest(a.request, false)}</details>` : html`<div class="muted">Request not recorded: ${NOT_RECORDED}.</div>`}
${a.bodyPreview ? html`<details><summary>Response body (preview)</summary><pre class="preview" tabindex="0">${a.bodyPreview}</pre></details>` : ''}
</li>`;
}

/** The request of the last attempt that sent one: what a request job sends, secrets masked. */
function lastRequest(e: Execution): Html {
  const attempts = e.attempts ?? [];
  if (attempts.length === 0) return html`<p class="muted">No request sent yet.</p>`;
  const last = [...attempts].reverse().find((a) => a.request);
  if (!last?.request) return html`<p class="muted">Not recorded: ${NOT_RECORDED}.</p>`;
  return html`${attempts.length > 1 ? html`<p class="muted">As attempt ${last.number} sent it; each attempt's is under Attempts.</p>` : ''}${sentRequest(last.request)}
<p class="muted">Secret values show as [secret].</p>`;
}

function timeline(ctx: ViewContext, attempts: Attempt[] | undefined, empty: string): Html {
  if (!attempts || attempts.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<ol class="timeline" aria-label="Attempts">${attempts.map((a) => attemptItem(ctx, a))}</ol>`;
}

function stepItem(ctx: ViewContext, s: StepExecution): Html {
  const payload = s.waiting_payload as { review_url?: string } | null | undefined;
  return html`<li>
<h3><code>${s.step_id}</code> <span class="muted">(${s.type}, step ${s.step_index + 1})</span> ${badge(s.status)}</h3>
<dl class="facts">
<dt>Started</dt><dd>${when(s.started_at, ctx.now)}</dd>
<dt>Finished</dt><dd>${when(s.finished_at, ctx.now)}</dd>
${s.error_class ? html`<dt>Error class</dt><dd class="mono">${s.error_class}</dd>` : ''}
${s.error_message ? html`<dt>Error</dt><dd>${s.error_message}</dd>` : ''}
${s.expires_at ? html`<dt>Waits until</dt><dd>${when(s.expires_at, ctx.now)}</dd>` : ''}
${s.decision ? html`<dt>Decision</dt><dd>${badge(s.decision)} ${when(s.decided_at ?? null, ctx.now)}</dd>` : ''}
${payload?.review_url && s.status === 'waiting' ? html`<dt>Approval</dt><dd><a href="${payload.review_url}">Review this approval</a></dd>` : ''}
</dl>
${s.type === 'http' ? timeline(ctx, s.attempts, 'No attempt yet.') : ''}
${hasValue(s.input) ? html`<details><summary>Input</summary>${jsonBlock(s.input)}</details>` : ''}
${hasValue(s.extracted) ? html`<details><summary>Extracted</summary>${jsonBlock(s.extracted)}</details>` : ''}
${hasValue(s.output) ? html`<details><summary>Output</summary>${jsonBlock(s.output)}</details>` : ''}
</li>`;
}

/** A host's Retry-After cool-down running now, which holds back this execution's next request to it. */
export interface HostCooldown {
  host: string;
  until: Date;
}

function facts(ctx: ViewContext, e: Execution, cooldowns: HostCooldown[]): Html {
  return html`<dl class="facts">
<dt>Status</dt><dd>${badge(e.status)}</dd>
<dt>Job</dt><dd><a href="${paths.job(e.job_id)}">${e.job_name}</a></dd>
<dt>Source</dt><dd>${e.source}</dd>
<dt>Scheduled for</dt><dd>${when(e.scheduled_for, ctx.now)}</dd>
<dt>Created</dt><dd>${when(e.created_at, ctx.now)}</dd>
<dt>Started</dt><dd>${when(e.started_at, ctx.now)}</dd>
<dt>Finished</dt><dd>${when(e.finished_at, ctx.now)}</dd>
<dt>Duration</dt><dd>${duration(e.duration_ms) || html`<span class="muted">none</span>`}</dd>
<dt>Attempts</dt><dd>${e.attempt_count}</dd>
${e.error_class ? html`<dt>Error class</dt><dd class="mono">${e.error_class}</dd>` : ''}
${e.error_message ? html`<dt>Error</dt><dd>${e.error_message}</dd>` : ''}
${e.waiting_reason ? html`<dt>Waiting for</dt><dd>${e.waiting_reason}${e.waiting_expires_at ? html`, until ${when(e.waiting_expires_at, ctx.now)}` : ''}</dd>` : ''}
${e.replay_of_id ? html`<dt>Replay of</dt><dd><a href="${paths.execution(e.replay_of_id)}">${e.replay_of_id}</a></dd>` : ''}
${e.dead_lettered_at ? html`<dt>Dead-lettered</dt><dd>${when(e.dead_lettered_at, ctx.now)}</dd>` : ''}
${cooldowns.map((c) => html`<dt>Host cool-down</dt><dd><span class="mono">${c.host}</span> asked to wait (Retry-After) until ${when(c.until, ctx.now)}</dd>`)}
</dl>`;
}

function finalResponse(e: Execution): Html {
  const response = e.final_response as { statusCode?: number | null; bodyPreview?: string | null } | null;
  if (!response) return html`<p class="muted">No response recorded.</p>`;
  return html`<p>HTTP <span class="mono">${response.statusCode ?? 'none'}</span></p>
${response.bodyPreview ? html`<pre class="preview" tabindex="0">${response.bodyPreview}</pre>` : html`<p class="muted">Empty body.</p>`}`;
}

/** The part of the page that refreshes itself while the execution is not finished. */
function live(ctx: ViewContext, e: Execution, cooldowns: HostCooldown[]): Html {
  const steps = e.step_executions ?? [];
  const polling = UNFINISHED.has(e.status) ? html` hx-get="${paths.execution(e.id)}" hx-trigger="every 3s" hx-select="#execution" hx-swap="outerHTML"` : '';
  return html`<div id="execution"${polling}>
<div class="grid">
<section class="card" aria-labelledby="summary-heading"><h2 id="summary-heading">Summary</h2>${facts(ctx, e, cooldowns)}</section>
${steps.length === 0 ? html`<section class="card" aria-labelledby="request-heading"><h2 id="request-heading">Request</h2>${lastRequest(e)}</section>` : ''}
<section class="card" aria-labelledby="response-heading"><h2 id="response-heading">Response</h2>${finalResponse(e)}
${hasValue(e.final_output) ? html`<h3>Output</h3>${jsonBlock(e.final_output)}` : ''}</section>
</div>
${
  steps.length > 0
    ? html`<section class="card" aria-labelledby="steps-heading"><h2 id="steps-heading">Steps</h2><ol class="steps">${steps.map((s) => stepItem(ctx, s))}</ol></section>`
    : html`<section class="card" aria-labelledby="attempts-heading"><h2 id="attempts-heading">Attempts</h2>${timeline(ctx, e.attempts, 'No attempt yet.')}</section>`
}
${hasValue(e.waiting_payload) ? html`<section class="card" aria-labelledby="wait-heading"><h2 id="wait-heading">Wait</h2>${jsonBlock(e.waiting_payload)}</section>` : ''}
${hasValue(e.trigger_input) ? html`<section class="card" aria-labelledby="trigger-heading"><h2 id="trigger-heading">Trigger input</h2>${jsonBlock(e.trigger_input)}</section>` : ''}
</div>`;
}

/** An execution: status, source, times, the request sent and the response, attempts as a timeline, steps, and Replay; secrets masked. */
export function executionView(ctx: ViewContext, e: Execution, cooldowns: HostCooldown[] = []): Html {
  return page(
    ctx,
    { title: `Execution of ${e.job_name}`, section: 'executions' },
    html`<div class="page-head"><h1>Execution of ${e.job_name}</h1><code>${e.id}</code></div>
<div class="actions">${postButton(ctx, paths.replay(e.id), 'Replay', { className: 'primary' })}</div>
${live(ctx, e, cooldowns)}`,
  );
}
