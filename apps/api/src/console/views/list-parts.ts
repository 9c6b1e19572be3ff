import type { Outcome } from '@cronsvc/core';
import { utc } from '../format.js';
import { html, type Html } from '../html.js';

/** A select of a filter: "any" (empty) first, then the values as the API spells them. */
export function filterSelect(id: string, name: string, label: string, values: readonly string[], current: string | undefined, anyLabel: string): Html {
  const options = values.map((v) => html`<option value="${v}"${v === current ? html` selected` : ''}>${v}</option>`);
  return html`<div class="field narrow"><label for="${id}">${label}</label><select id="${id}" name="${name}"><option value="">${anyLabel}</option>${options}</select></div>`;
}

/** Previous and next pages of a list, keeping its filters. */
export function pager(path: string, query: Record<string, string | undefined>, page: { total: number; limit: number; offset: number }): Html {
  if (page.total <= page.limit && page.offset === 0) return html``;
  const link = (offset: number) => {
    const params = new URLSearchParams(Object.entries({ ...query, offset: String(offset) }).filter(([, v]) => v !== undefined && v !== '') as [string, string][]);
    return `${path}?${params}`;
  };
  const last = Math.min(page.offset + page.limit, page.total);
  return html`<nav class="pager" aria-label="Pages">
${page.offset > 0 ? html`<a href="${link(Math.max(0, page.offset - page.limit))}">Previous</a>` : ''}
<span class="muted">${page.total === 0 ? 0 : page.offset + 1}–${last} of ${page.total}</span>
${last < page.total ? html`<a href="${link(page.offset + page.limit)}">Next</a>` : ''}
</nav>`;
}

/** The last outcomes of a job as a strip of coloured cells, oldest on the left, summed up in words for screen readers. */
export function outcomeStrip(outcomes: Outcome[]): Html {
  if (outcomes.length === 0) return html`<span class="muted">no runs yet</span>`;
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o.status, (counts.get(o.status) ?? 0) + 1);
  const summary = `Last ${outcomes.length}: ${[...counts].map(([status, n]) => `${n} ${status}`).join(', ')}`;
  const cells = outcomes.map((o) => html`<span class="o-${o.status}" title="${o.status}, ${utc(o.scheduledFor)}"></span>`);
  return html`<span class="strip" role="img" aria-label="${summary}" title="${summary}">${cells}</span>`;
}
