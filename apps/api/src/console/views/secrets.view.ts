import type { Secret } from '@cronsvc/contracts';
import { when } from '../format.js';
import { html, type Html } from '../html.js';
import type { FieldErrors, FormValues } from '../form-parsing.js';
import { paths } from '../paths.js';
import { errorSummary, field, fieldId, type FieldSpec } from './fields.js';
import { allowed, csrfField, page, postButton, type ViewContext } from './layout.js';

const NAME: FieldSpec = { name: 'name', label: 'Name', required: true, hint: 'Letters, digits and _, not starting with a digit; used as {{secret.NAME}}.' };
const VALUE: FieldSpec = { name: 'value', label: 'Value', type: 'password', required: true, hint: 'Stored encrypted; never shown again.' };
const NEW_VALUE: FieldSpec = { name: 'value', label: 'New value', type: 'password', required: true, hint: 'Replaces the stored value; jobs use it from their next attempt.' };

const deleteButton = (ctx: ViewContext, s: Secret, small: boolean) =>
  postButton(ctx, paths.secretDelete(s.id), 'Delete', { className: small ? 'small danger' : 'danger', confirm: `Delete the secret "${s.name}"? Jobs that use it will fail.` });

/** Secrets: names only; create, set a new value, delete. */
export function secretsView(ctx: ViewContext, secrets: Secret[], form: { values: FormValues; errors: FieldErrors }): Html {
  const table =
    secrets.length === 0
      ? html`<p class="empty">No secrets yet.</p>`
      : html`<table class="list"><caption class="visually-hidden">Secrets</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Updated</th><th scope="col">Actions</th></tr></thead>
<tbody>${secrets.map(
          (s) => html`<tr>
<td data-label="Name"><code>${s.name}</code></td>
<td data-label="Created">${when(s.created_at, ctx.now)}</td>
<td data-label="Updated">${when(s.updated_at, ctx.now)}</td>
<td data-label="Actions" class="actions-cell"><div class="actions">${allowed(ctx, paths.secret(s.id)) ? html`<form method="get" action="${paths.secret(s.id)}"><button type="submit" class="small">Set value</button></form>` : ''}${deleteButton(ctx, s, true)}</div></td>
</tr>`,
        )}</tbody></table>`;
  return page(
    ctx,
    { title: 'Secrets', section: 'secrets' },
    html`<h1>Secrets</h1>
<p class="muted">Values are never shown. Jobs and channels use them as <code>{{secret.NAME}}</code>; they are put in only when a request is sent, and masked in what is recorded.</p>
${table}
${allowed(ctx, paths.secrets) ? html`<section class="card" aria-labelledby="new-secret-heading"><h2 id="new-secret-heading">New secret</h2>
${errorSummary('The secret was not created.', form.errors, { name: 'Name', value: 'Value' }, (name) => fieldId({ name, idPrefix: 's' }))}
<form method="post" action="${paths.secrets}" novalidate>${csrfField(ctx.csrf)}
<div class="grid">${field({ ...NAME, idPrefix: 's' }, form.values.name, form.errors.name)}${field({ ...VALUE, idPrefix: 's' }, '', form.errors.value)}</div>
<div class="actions"><button type="submit" class="primary">Create secret</button></div>
</form></section>` : ''}`,
  );
}

/** One secret: set a new value (the old one is not shown), or delete it. */
export function secretView(ctx: ViewContext, secret: Secret, errors: FieldErrors): Html {
  return page(
    ctx,
    { title: `Secret ${secret.name}`, section: 'secrets' },
    html`<h1>Secret <code>${secret.name}</code></h1>
<p class="muted">Created ${when(secret.created_at, ctx.now)}; value last set ${when(secret.updated_at, ctx.now)}.</p>
${errorSummary('The value was not changed.', errors, { value: 'New value' }, (name) => fieldId({ name, idPrefix: 's' }))}
${allowed(ctx, paths.secret(secret.id)) ? html`<form class="card" method="post" action="${paths.secret(secret.id)}" novalidate>${csrfField(ctx.csrf)}
${field({ ...NEW_VALUE, idPrefix: 's' }, '', errors.value)}
<div class="actions"><button type="submit" class="primary">Set value</button></div>
</form>` : ''}
<div class="actions">${deleteButton(ctx, secret, false)}<a href="${paths.secrets}">Back to the secret list</a></div>`,
  );
}
