import type { Assets } from '../assets.js';
import { html, type Html } from '../html.js';
import { paths } from '../paths.js';
import { barePage, page, postButton, type ViewContext } from './layout.js';

/** An error page: what went wrong and where to go from here. */
export function problemView(ctx: ViewContext | null, assets: Assets['urls'], title: string, message: string): Html {
  const body = html`<div class="card">
<h1>${title}</h1>
<p>${message}</p>
<p><a href="${paths.jobs}">Back to the jobs</a></p>
</div>`;
  return ctx ? page(ctx, { title }, body) : barePage(assets, title, body);
}

/** Asked when a destructive form arrives without its confirmation (a browser without script). */
export function confirmView(
  ctx: ViewContext,
  question: string,
  action: string,
  label: string,
  back: string,
  fields: Record<string, string> = {},
  note = 'This cannot be undone.',
): Html {
  return page(
    ctx,
    { title: question },
    html`<div class="card">
<h1>${question}</h1>
<p>${note}</p>
<div class="actions">${postButton(ctx, action, label, { className: 'danger', fields: { ...fields, confirmed: 'yes' } })}<a class="button" href="${back}">Cancel</a></div>
</div>`,
  );
}
