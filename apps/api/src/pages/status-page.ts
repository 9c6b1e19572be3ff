import { createHash } from 'node:crypto';
import type { BadgeState, PublicStatusPage, StatusDayState, StatusPageItem } from '@cronsvc/contracts';
import { escapeHtml } from './approval-page.js';

/**
 * The public status page (docs/API.md, "Status pages"): plain HTML with no script, one stylesheet
 * inline and allowed by its hash, light or dark as the reader's system prefers, one column on a
 * phone. Only the page's name and its items' names and states are on it.
 */

const STYLE = `
:root { color-scheme: light dark; --bg: #f4f5f7; --card: #fff; --text: #1d2129; --muted: #57606a; --none: #d0d5dc;
  --passing: #2e7d32; --up: #2e7d32; --failing: #c62828; --down: #c62828; --late: #b35c00; --paused: #616161; --new: #616161; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #111418; --card: #1c2128; --text: #e6edf3; --muted: #9da7b3; --none: #3a424d;
    --passing: #57ab5a; --up: #57ab5a; --failing: #e5534b; --down: #e5534b; --late: #d98b2b; --paused: #8b949e; --new: #8b949e; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--text); }
main { max-width: 56rem; margin: 0 auto; padding: 1rem; }
header { margin: .5rem 0 1rem; }
h1 { font-size: 1.5rem; margin: 0; overflow-wrap: anywhere; }
.summary { font-size: 1.05rem; margin: .25rem 0 0; }
.muted { color: var(--muted); font-size: .875rem; }
ul { list-style: none; margin: 0; padding: 0; }
li { background: var(--card); border-radius: 12px; padding: 1rem; margin-bottom: .75rem; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
.row { display: flex; flex-wrap: wrap; gap: .25rem .75rem; align-items: baseline; justify-content: space-between; }
h2 { font-size: 1.05rem; margin: 0; overflow-wrap: anywhere; }
.state { font-weight: 600; }
.state::before { content: ""; display: inline-block; width: .7em; height: .7em; border-radius: 50%; margin-right: .35em; background: currentColor; }
.passing, .up { color: var(--passing); } .failing, .down { color: var(--failing); } .late { color: var(--late); } .paused, .new { color: var(--paused); }
svg.bars { display: block; width: 100%; height: 34px; margin: .6rem 0 .25rem; }
.bars .none { fill: var(--none); } .bars .passing, .bars .up { fill: var(--passing); } .bars .failing, .bars .down { fill: var(--failing); }
.scale { display: flex; justify-content: space-between; }
footer { margin: 1.5rem 0; }
`;

/** Served with the page: the style allowed by its hash and nothing else (no script, frames, forms or base). */
export const STATUS_PAGE_HEADERS = {
  'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'public, max-age=30',
  'X-Robots-Tag': 'noindex',
};

const STATE_WORDS: Record<BadgeState, string> = {
  passing: 'Operational', up: 'Operational', failing: 'Failing', down: 'Down', late: 'Late', paused: 'Paused', new: 'No data yet',
};
const DAY_WORDS: Record<StatusDayState, string> = { passing: 'no failures', up: 'up', failing: 'failures', down: 'down for a time', none: 'no data' };

const percent = (rate: number | null) => (rate === null ? 'no uptime data' : `${(Math.floor(rate * 10_000) / 100).toFixed(2)}% uptime`);

/** 90 bars, oldest left; each has its date and state as a tooltip, the whole an accessible summary. */
function bars(item: StatusPageItem): string {
  const bad = item.days.filter((d) => d.state === 'failing' || d.state === 'down').length;
  const known = item.days.filter((d) => d.state !== 'none').length;
  const label = `${item.name}, last ${item.days.length} days: ${known} with data, ${bad} with failures`;
  const rects = item.days
    .map((d, i) => `<rect class="${d.state}" x="${i * 4}" y="0" width="3" height="34" rx="1"><title>${d.date}: ${DAY_WORDS[d.state]}</title></rect>`)
    .join('');
  return `<svg class="bars" viewBox="0 0 ${item.days.length * 4 - 1} 34" preserveAspectRatio="none" role="img" aria-label="${escapeHtml(label)}">${rects}</svg>`;
}

function overall(items: StatusPageItem[]): { word: string; className: string } {
  if (items.some((i) => i.state === 'failing' || i.state === 'down')) return { word: 'Some systems are failing', className: 'failing' };
  if (items.some((i) => i.state === 'late')) return { word: 'Some systems are late', className: 'late' };
  return { word: items.length === 0 ? 'Nothing to show' : 'All systems operational', className: 'passing' };
}

export function renderStatusPage(page: PublicStatusPage): string {
  const state = overall(page.items);
  const items = page.items
    .map(
      (item) => `<li><div class="row"><h2>${escapeHtml(item.name)}</h2><span class="state ${item.state}">${STATE_WORDS[item.state]}</span></div>
${bars(item)}<div class="scale muted"><span>90 days ago</span><span>${percent(item.uptime_90d)}</span><span>Today</span></div></li>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.name)} status</title><style>${STYLE}</style></head>
<body><main>
<header><h1>${escapeHtml(page.name)}</h1><p class="summary state ${state.className}">${state.word}</p>
<p class="muted">Last updated <time datetime="${page.updated_at}">${page.updated_at.slice(0, 16).replace('T', ' ')} UTC</time></p></header>
<ul>
${items}
</ul>
<footer class="muted">Each bar is a UTC day: green without failures, red with a failure or time down, grey with no data.</footer>
</main></body></html>`;
}
