import type { JobStats, StatsBucket, StatsWindow } from '@cronsvc/contracts';
import type { Outcome } from '@cronsvc/core';
import { duration, utc } from '../format.js';
import { html, type Html } from '../html.js';
import { paths } from '../paths.js';
import { outcomeStrip } from './list-parts.js';

/**
 * A job's statistics on its page (docs/CONSOLE.md, "A job"): success rate, the last outcomes, and
 * a chart drawn here as SVG (no script) of durations and outcomes per bucket, with its figures in
 * a table for whoever cannot see it. Its labels are HTML around the chart, so they stay readable
 * however narrow the chart is drawn.
 */

const WINDOWS: [StatsWindow, string][] = [['24h', '24 h'], ['7d', '7 d'], ['30d', '30 d']];
const IN_WORDS: Record<StatsWindow, { span: string; bucket: string }> = {
  '24h': { span: 'the last 24 hours', bucket: 'hour' },
  '7d': { span: 'the last 7 days', bucket: 'day' },
  '30d': { span: 'the last 30 days', bucket: 'day' },
};

// The chart's own units: each bucket 10 wide; durations in the top band, outcomes in the bottom one.
const SLOT = 10;
const DURATION_TOP = 4;
const DURATION_BOTTOM = 56;
const BARS_TOP = 66;
const BARS_BOTTOM = 116;
const HEIGHT = 120;

const percent = (rate: number | null) => (rate === null ? 'no executions' : `${(Math.floor(rate * 1000) / 10).toFixed(1)}%`);
const num = (n: number) => String(Math.round(n * 100) / 100);

/** Lines through the buckets that have a value, broken where one has none, with a short tick on each. */
function durationLine(buckets: StatsBucket[], value: (b: StatsBucket) => number | null, y: (ms: number) => number, className: string): Html {
  const runs: string[][] = [];
  let run: string[] = [];
  const ticks: Html[] = [];
  buckets.forEach((b, i) => {
    const ms = value(b);
    if (ms === null) {
      if (run.length) runs.push(run);
      run = [];
      return;
    }
    run.push(`${num(i * SLOT + SLOT / 2)},${num(y(ms))}`);
    ticks.push(html`<line class="${className}" x1="${num(i * SLOT + 2)}" x2="${num(i * SLOT + SLOT - 2)}" y1="${num(y(ms))}" y2="${num(y(ms))}" vector-effect="non-scaling-stroke"/>`);
  });
  if (run.length) runs.push(run);
  return html`${runs.filter((r) => r.length > 1).map((r) => html`<polyline class="${className}" points="${r.join(' ')}" vector-effect="non-scaling-stroke"/>`)}${ticks}`;
}

/** The chart: p50 and p95 lines above, succeeded and failed bars below, one column per bucket. */
function chart(stats: JobStats, label: string): Html {
  const { buckets } = stats;
  const width = buckets.length * SLOT;
  const top = Math.max(1, ...buckets.map((b) => b.p95_ms ?? 0));
  const most = Math.max(1, ...buckets.map((b) => b.executions));
  const y = (ms: number) => DURATION_BOTTOM - (ms / top) * (DURATION_BOTTOM - DURATION_TOP);
  const barHeight = (n: number) => (n / most) * (BARS_BOTTOM - BARS_TOP);
  const bars = buckets.map((b, i) => {
    const okHeight = barHeight(b.executions - b.failed);
    const badHeight = barHeight(b.failed);
    const x = num(i * SLOT + 1.5);
    return html`${okHeight > 0 ? html`<rect class="ok" x="${x}" width="7" y="${num(BARS_BOTTOM - okHeight)}" height="${num(okHeight)}"/>` : ''}${
      badHeight > 0 ? html`<rect class="bad" x="${x}" width="7" y="${num(BARS_BOTTOM - okHeight - badHeight)}" height="${num(badHeight)}"/>` : ''
    }`;
  });
  return html`<svg class="stats-chart" viewBox="0 0 ${String(width)} ${String(HEIGHT)}" preserveAspectRatio="none" role="img" aria-label="${label}" focusable="false">
<title>${label}</title>
<line class="axis" x1="0" x2="${String(width)}" y1="${String(DURATION_BOTTOM)}" y2="${String(DURATION_BOTTOM)}" vector-effect="non-scaling-stroke"/>
<line class="axis" x1="0" x2="${String(width)}" y1="${String(BARS_BOTTOM)}" y2="${String(BARS_BOTTOM)}" vector-effect="non-scaling-stroke"/>
${bars}
${durationLine(buckets, (b) => b.p95_ms, y, 'p95')}
${durationLine(buckets, (b) => b.p50_ms, y, 'p50')}
</svg>`;
}

/** The figures the chart draws, bucket by bucket. */
function figures(stats: JobStats, bucket: string): Html {
  const when = (start: string) => (stats.window === '24h' ? utc(start) : start.slice(0, 10));
  return html`<details class="stats-figures"><summary>The figures, ${bucket} by ${bucket}</summary>
<table class="list"><caption class="visually-hidden">Executions and durations per ${bucket}</caption>
<thead><tr><th scope="col">${bucket === 'hour' ? 'Hour (UTC)' : 'Day (UTC)'}</th><th scope="col">Executions</th><th scope="col">Failed</th><th scope="col">p50</th><th scope="col">p95</th></tr></thead>
<tbody>${stats.buckets.map(
    (b) => html`<tr><td data-label="${bucket === 'hour' ? 'Hour' : 'Day'}">${when(b.start)}</td><td data-label="Executions">${String(b.executions)}</td><td data-label="Failed">${String(b.failed)}</td><td data-label="p50">${duration(b.p50_ms) || '–'}</td><td data-label="p95">${duration(b.p95_ms) || '–'}</td></tr>`,
  )}</tbody></table></details>`;
}

/** The statistics section of a job's page for one window, with links to the others. */
export function statsSection(jobId: string, stats: JobStats, outcomes: Outcome[]): Html {
  const words = IN_WORDS[stats.window];
  const windows = WINDOWS.map(
    ([w, text]) => html`<li><a href="${paths.job(jobId)}?window=${w}#stats-heading"${w === stats.window ? html` aria-current="true"` : ''}>${text}</a></li>`,
  );
  const d = stats.duration_ms;
  const label =
    stats.executions === 0
      ? `No executions ended in ${words.span}.`
      : `Duration p50 and p95, and executions succeeded and failed, per ${words.bucket} over ${words.span}: ${stats.executions} executions, ${stats.failed} failed; p50 ${duration(d.p50)}, p95 ${duration(d.p95)}. The figures are in the table below.`;
  const top = Math.max(0, ...stats.buckets.map((b) => b.p95_ms ?? 0));
  return html`<section class="card" aria-labelledby="stats-heading"><h2 id="stats-heading">Statistics</h2>
<div class="stats-body"><div>
<nav aria-label="Statistics window"><ul class="windows">${windows}</ul></nav>
<dl class="facts">
<dt>Success rate</dt><dd><strong>${percent(stats.success_rate)}</strong>${stats.executions > 0 ? ` (${stats.succeeded} of ${stats.executions} over ${words.span})` : ` over ${words.span}`}</dd>
<dt>Duration</dt><dd>${stats.executions > 0 ? `p50 ${duration(d.p50)}, p95 ${duration(d.p95)}, p99 ${duration(d.p99)}` : '–'}</dd>
<dt>Last 20</dt><dd>${outcomeStrip(outcomes)}</dd>
</dl>
</div>
<figure class="stats">
<ul class="legend" aria-hidden="true"><li><span class="key p50"></span>p50</li><li><span class="key p95"></span>p95 (top: ${top > 0 ? duration(top) : '–'})</li><li><span class="key ok"></span>succeeded</li><li><span class="key bad"></span>failed</li></ul>
${chart(stats, label)}
<figcaption class="axis-ends"><span>${stats.window === '24h' ? '24 h ago' : `${stats.buckets.length} days ago`}</span><span>now</span></figcaption>
</figure></div>
${figures(stats, words.bucket)}
</section>`;
}
