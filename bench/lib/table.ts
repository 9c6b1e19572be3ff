// The one table the bench prints, and the same rows as Markdown for docs/BENCHMARKS.md.
import { formatValue, targetText, type Judged } from './verdict.js';

const HEADERS = ['Scenario', 'Measure', 'Value', 'Target', 'Verdict', 'Note'] as const;

function cells(j: Judged): string[] {
  const note = [j.reason, j.note].filter(Boolean).join('; ');
  return [j.scenario, j.name, formatValue(j), j.target ? targetText(j.target, j.unit) : '', j.verdict, note];
}

/** A plain-text table with aligned columns; the note column is left ragged. */
export function formatTable(rows: readonly Judged[]): string {
  const body = rows.map(cells);
  const widths = HEADERS.map((h, i) => (i === HEADERS.length - 1 ? 0 : Math.max(h.length, ...body.map((r) => r[i].length))));
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : i === 2 ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w, i) => '-'.repeat(i === widths.length - 1 ? 4 : w)).join('  ');
  return [line(HEADERS), rule, ...body.map(line)].join('\n');
}

const escapeCell = (c: string) => c.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function formatMarkdownTable(rows: readonly Judged[]): string {
  const head = `| ${HEADERS.join(' | ')} |`;
  const rule = `|${HEADERS.map((_, i) => (i === 2 ? '---:' : '---')).join('|')}|`;
  return [head, rule, ...rows.map((r) => `| ${cells(r).map(escapeCell).join(' | ')} |`)].join('\n');
}
