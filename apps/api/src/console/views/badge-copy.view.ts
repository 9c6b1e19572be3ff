import { html, type Html } from '../html.js';

/** The Markdown that shows a badge, linked to nothing. */
export const badgeMarkdown = (name: string, url: string) => `![${name.replace(/[[\]\\]/g, '\\$&')}](${url})`;

/** The badge's own path: the console shows it from its own origin, whatever PUBLIC_BASE_URL says. */
const localPath = (url: string) => new URL(url).pathname;

/** A "Copy badge" button with the Markdown snippet it copies (docs/CONSOLE.md, "Badges"). */
export function badgeCopy(id: string, name: string, url: string): Html {
  return html`<div class="copy-row"><label class="visually-hidden" for="${id}">Badge Markdown of ${name}</label><input type="text" id="${id}" class="mono" value="${badgeMarkdown(name, url)}" readonly><button type="button" class="small" data-copy="${id}">Copy badge</button></div>`;
}

/** A job's badge as it looks now, and its Markdown to copy. */
export function badgeSection(name: string, url: string): Html {
  return html`<section class="card" aria-labelledby="badge-heading"><h2 id="badge-heading">Badge</h2>
<p><img src="${localPath(url)}" alt="Status badge of ${name}" height="20"></p>
${badgeCopy('badge-markdown', name, url)}
<p class="muted">Anyone with the URL sees the job's name and state. <code>.json</code> instead of <code>.svg</code> gives a shields.io endpoint.</p></section>`;
}
