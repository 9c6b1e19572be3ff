import type { ApiToken, ApiTokenCreated, AuditEvent, ListEnvelope } from '@cronsvc/contracts';
import { when } from '../format.js';
import { html, type Html } from '../html.js';
import type { FieldErrors, FormValues } from '../form-parsing.js';
import { paths } from '../paths.js';
import { errorSummary, field, fieldId, type FieldSpec } from './fields.js';
import { pager } from './list-parts.js';
import { allowed, csrfField, page, postButton, type ViewContext } from './layout.js';

const TOKEN_FIELDS: FieldSpec[] = [
  { name: 'name', label: 'Name', hint: 'What the token is for, e.g. dashboard or deploy pipeline.' },
  { name: 'scope', label: 'Scope', type: 'select', options: ['full', 'run', 'read'], hint: 'full: everything; run: read, run, replay, pause and resume; read: read only.' },
  { name: 'expires_at', label: 'Expires at', placeholder: '2027-01-01T00:00:00Z', hint: 'Optional, an ISO 8601 time (UTC); empty for never.' },
];
const LABELS = { name: 'Name', scope: 'Scope', expires_at: 'Expires at' };

export interface TokensPage {
  tokens: ApiToken[];
  values: FormValues;
  errors: FieldErrors;
  /** The token just made, shown this once. */
  created?: ApiTokenCreated;
}

/** API tokens: the list (never a token itself), a new one shown once, delete. */
export function tokensView(ctx: ViewContext, view: TokensPage): Html {
  const rows = view.tokens.map(
    (t) => html`<tr>
<td data-label="Name">${t.name ?? html`<span class="muted">unnamed</span>`}</td>
<td data-label="Scope"><span class="badge">${t.scope}</span></td>
<td data-label="Starts with">${t.prefix ? html`<code>${t.prefix}…</code>` : html`<span class="muted">not kept</span>`}</td>
<td data-label="Created">${when(t.created_at, ctx.now)}</td>
<td data-label="Last used">${t.last_used_at ? when(t.last_used_at, ctx.now) : 'never'}</td>
<td data-label="Expires">${t.expires_at ? when(t.expires_at, ctx.now) : 'never'}</td>
<td data-label="Actions" class="actions-cell">${postButton(ctx, paths.tokenDelete(t.id), 'Delete', {
      className: 'small danger', confirm: `Delete the token ${t.name ?? t.prefix ?? t.id}? Requests with it are refused at once and its console sessions end.`,
    })}</td>
</tr>`,
  );
  const created = view.created
    ? html`<section class="card notice" role="status" aria-labelledby="created-heading"><h2 id="created-heading">Token created</h2>
<p>Copy it now: it is shown this once.</p><p><code class="token" data-token>${view.created.api_token}</code></p></section>`
    : '';
  const form = allowed(ctx, paths.tokens)
    ? html`<section class="card" aria-labelledby="new-token-heading"><h2 id="new-token-heading">New token</h2>
${errorSummary('The token was not created.', view.errors, LABELS, (name) => fieldId({ name, idPrefix: 't' }))}
<form method="post" action="${paths.tokens}" novalidate>${csrfField(ctx.csrf)}
<div class="grid">${TOKEN_FIELDS.map((f) => field({ ...f, idPrefix: 't' }, view.values[f.name], view.errors[f.name]))}</div>
<div class="actions"><button type="submit" class="primary">Create token</button></div>
</form></section>`
    : '';
  return page(
    ctx,
    { title: 'Tokens', section: 'tokens' },
    html`<h1>API tokens</h1>
${created}
<table class="list"><caption class="visually-hidden">API tokens</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Scope</th><th scope="col">Starts with</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead>
<tbody>${rows}</tbody></table>
${form}`,
  );
}

export interface AuditFilter {
  action?: string;
  target_id?: string;
  from?: string;
  to?: string;
}

const actorText = (a: AuditEvent['actor']) => html`${a.type}${a.name ? html` <strong>${a.name}</strong>` : ''}${a.token_id ? html` <code>${a.token_id}</code>` : ''}`;

/** The audit log, newest first, with the API's filters. */
export function auditView(ctx: ViewContext, list: ListEnvelope<AuditEvent>, filter: AuditFilter, error?: string): Html {
  const table =
    list.data.length === 0
      ? html`<p class="empty">No event matches these filters.</p>`
      : html`<table class="list"><caption class="visually-hidden">Audit events</caption>
<thead><tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">By</th><th scope="col">Fields</th><th scope="col">Request</th></tr></thead>
<tbody>${list.data.map(
          (e) => html`<tr>
<td data-label="When">${when(e.created_at, ctx.now)}</td>
<td data-label="Action"><code>${e.action}</code></td>
<td data-label="Target">${e.target_type}${e.target_id ? html` <code>${e.target_id}</code>` : ''}</td>
<td data-label="By">${actorText(e.actor)}</td>
<td data-label="Fields">${e.changed_fields.join(', ')}</td>
<td data-label="Request">${e.request_id ? html`<code>${e.request_id}</code>` : ''}</td>
</tr>`,
        )}</tbody></table>`;
  const text = (name: keyof AuditFilter, label: string, placeholder: string) =>
    html`<div class="field"><label for="filter-${name.replace('_', '-')}">${label}</label><input type="text" id="filter-${name.replace('_', '-')}" name="${name}" value="${filter[name] ?? ''}" placeholder="${placeholder}" autocomplete="off"></div>`;
  return page(
    ctx,
    { title: 'Audit log', section: 'audit' },
    html`<h1>Audit log</h1>
<p class="muted">Every change made in this workspace, and by whom; the names of the fields changed, never their values.</p>
<form class="filters" method="get" action="${paths.audit}" role="search" aria-label="Filter audit events">
${text('action', 'Action', 'job.updated')}${text('target_id', 'Target id', 'job_...')}${text('from', 'From', '2026-01-01T00:00:00Z')}${text('to', 'To', '2026-01-31T23:59:59Z')}
<button type="submit">Filter</button>
</form>
${error ? html`<p class="alert" role="alert">${error}</p>` : ''}
${table}
${pager(paths.audit, { ...filter }, list)}`,
  );
}
