import type { Assets } from '../assets.js';
import { CSRF_FIELD } from '../csrf.js';
import { html, type Html } from '../html.js';
import { paths } from '../paths.js';
import { barePage } from './layout.js';

/** The sign-in form: one field, "API token"; a wrong token comes back with the error beside it. */
export function signInView(assets: Assets['urls'], form: { csrf: string; next: string | null; error?: string; notice?: string }): Html {
  const invalid = form.error !== undefined;
  return barePage(
    assets,
    'Sign in',
    html`<div class="card center-card">
<h1>Sign in</h1>
${form.notice ? html`<p class="notice" role="status">${form.notice}</p>` : ''}
<p class="muted">Use an API token of your workspace. It starts a session of 12 hours and is not kept in your browser.</p>
<form method="post" action="${paths.signIn}">
<input type="hidden" name="${CSRF_FIELD}" value="${form.csrf}">
${form.next ? html`<input type="hidden" name="next" value="${form.next}">` : ''}
<div class="field">
<label for="token">API token</label>
<input id="token" name="token" type="password" autocomplete="off" spellcheck="false" required${invalid ? html` aria-invalid="true" aria-describedby="token-error"` : ''}>
${invalid ? html`<span class="field-error" id="token-error" role="alert">${form.error}</span>` : ''}
</div>
<div class="actions"><button type="submit" class="primary">Sign in</button></div>
</form>
</div>`,
  );
}
