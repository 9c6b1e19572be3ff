import type { Assets } from '../assets.js';
import { CSRF_FIELD } from '../csrf.js';
import { html, type Html } from '../html.js';
import { paths } from '../paths.js';

/** What every signed-in page is rendered with. */
export interface ViewContext {
  csrf: string;
  workspaceName: string;
  now: Date;
  assets: Assets['urls'];
  /** A short confirmation of what the last action did. */
  notice?: string | null;
  /** Whether the session's scope may POST to this console path: controls it may not use are not shown. */
  may?: (path: string) => boolean;
}

/** Whether a page shows the control that posts to `path` (docs/CONSOLE.md, "Scopes"). */
export const allowed = (ctx: Pick<ViewContext, 'may'>, path: string): boolean => ctx.may?.(path) ?? true;

export type Section = 'jobs' | 'executions' | 'dead-letters' | 'monitors' | 'channels' | 'secrets' | 'hosts' | 'tokens' | 'audit' | 'status-pages' | 'new-job';

const NAV: [Section, string, string][] = [
  ['jobs', 'Jobs', paths.jobs],
  ['executions', 'Executions', paths.executions],
  ['dead-letters', 'Dead letters', paths.deadLetters],
  ['monitors', 'Monitors', paths.monitors],
  ['channels', 'Channels', paths.channels],
  ['secrets', 'Secrets', paths.secrets],
  ['hosts', 'Host limits', paths.hosts],
  ['tokens', 'Tokens', paths.tokens],
  ['audit', 'Audit log', paths.audit],
  ['status-pages', 'Status pages', paths.statusPages],
  ['new-job', 'New job', paths.newJob],
];

// htmx: no inline indicator styles (the policy forbids them), no eval, no snapshots of pages in
// the browser's storage.
const HTMX_CONFIG = JSON.stringify({ includeIndicatorStyles: false, allowEval: false, allowScriptTags: false, historyCacheSize: 0, refreshOnHistoryMiss: true });

function head(assets: Assets['urls'], title: string): Html {
  return html`<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="htmx-config" content="${HTMX_CONFIG}">
<title>${title} · cronsvc console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets.style}">
<script src="${assets.htmx}" defer></script>
<script src="${assets.script}" defer></script>`;
}

/** A signed-in page: skip link, banner with the workspace and Sign out, navigation, main. */
export function page(ctx: ViewContext, meta: { title: string; section?: Section }, body: Html): Html {
  const nav = NAV.filter(([section]) => section !== 'new-job' || allowed(ctx, paths.jobs)).map(
    ([section, label, href]) =>
      html`<li><a href="${href}"${section === 'new-job' ? html` class="new-job"` : ''}${section === meta.section ? html` aria-current="page"` : ''}>${label}</a></li>`,
  );
  return html`<!doctype html>
<html lang="en">
<head>
${head(ctx.assets, meta.title)}
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="top">
<div class="top-inner">
<a class="brand" href="${paths.jobs}">cronsvc console</a>
<span class="workspace"><span class="workspace-label">Workspace: </span><strong>${ctx.workspaceName}</strong></span>
<form method="post" action="${paths.signOut}">${csrfField(ctx.csrf)}<button type="submit" class="small">Sign out</button></form>
</div>
</header>
<nav class="main-nav" aria-label="Console"><ul>${nav}</ul></nav>
<main id="main" tabindex="-1">
${ctx.notice ? html`<p class="notice" role="status">${ctx.notice}</p>` : ''}
${body}
</main>
</body>
</html>
`;
}

/** A page without a session: sign-in, and the problems met before one. */
export function barePage(assets: Assets['urls'], title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
${head(assets, title)}
</head>
<body>
<header class="top"><div class="top-inner"><span class="brand">cronsvc console</span></div></header>
<main id="main" tabindex="-1">
${body}
</main>
</body>
</html>
`;
}

export const csrfField = (csrf: string) => html`<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">`;

interface ButtonOptions {
  /** Asked before the form is sent (docs/CONSOLE.md: deletes and purges ask first). */
  confirm?: string;
  className?: string;
  /** Extra hidden fields. */
  fields?: Record<string, string>;
}

/** A one-button form that POSTs to `action` with the session's CSRF token. */
export function postButton(ctx: Pick<ViewContext, 'csrf' | 'may'>, action: string, label: string, options: ButtonOptions = {}): Html {
  if (!allowed(ctx, action)) return html``;
  const hidden = Object.entries(options.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<form method="post" action="${action}"${options.confirm ? html` data-confirm="${options.confirm}"` : ''}>${csrfField(ctx.csrf)}${hidden}${
    options.confirm ? html`<input type="hidden" name="confirmed" value="">` : ''
  }<button type="submit"${options.className ? html` class="${options.className}"` : ''}>${label}</button></form>`;
}

export const badge = (value: string) => html`<span class="badge s-${value}">${value}</span>`;
