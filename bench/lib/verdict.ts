// Figures and their verdicts against the targets (bench/lib/params.ts). A figure that could not be measured,
// or was measured badly, never passes: it is NO DATA or INVALID, whatever its value.

export type Comparator = '<' | '<=' | '>' | '>=';

export interface Target {
  op: Comparator;
  value: number;
}

export interface Figure {
  scenario: string;
  name: string;
  /** Null when nothing was measured. */
  value: number | null;
  unit: string;
  target?: Target;
  /** Reasons the measurement cannot be trusted (incomplete run, non-2xx answers, ...). */
  problems?: string[];
  /**
   * A condition of the target that the run did not meet (e.g. a latency quoted "at 500 req/s"
   * when only 300 req/s could be reached): the figure is shown, and it fails whatever its value.
   */
  unmet?: string;
  note?: string;
}

export type Verdict = 'PASS' | 'FAIL' | 'NO DATA' | 'INVALID' | 'INFO';

export interface Judged extends Figure {
  verdict: Verdict;
  /** Why a figure is FAIL, NO DATA or INVALID. */
  reason?: string;
}

function compare(value: number, target: Target): boolean {
  switch (target.op) {
    case '<':
      return value < target.value;
    case '<=':
      return value <= target.value;
    case '>':
      return value > target.value;
    case '>=':
      return value >= target.value;
  }
}

export function targetText(target: Target, unit: string): string {
  return `${target.op} ${formatNumber(target.value)}${unit ? ` ${unit}` : ''}`;
}

export function judge(figure: Figure): Judged {
  const problems = figure.problems ?? [];
  if (problems.length > 0) return { ...figure, verdict: 'INVALID', reason: problems.join('; ') };
  const measured = figure.value !== null && Number.isFinite(figure.value);
  if (!figure.target) return { ...figure, value: measured ? figure.value : null, verdict: measured ? 'INFO' : 'NO DATA', reason: measured ? undefined : 'not measured' };
  if (!measured) return { ...figure, value: null, verdict: 'NO DATA', reason: 'not measured, so the target is missed' };
  if (figure.unmet) return { ...figure, verdict: 'FAIL', reason: figure.unmet };
  const ok = compare(figure.value as number, figure.target);
  return { ...figure, verdict: ok ? 'PASS' : 'FAIL', reason: ok ? undefined : `${formatNumber(figure.value as number)} is not ${targetText(figure.target, figure.unit)}` };
}

/**
 * A figure computed from others (a ratio to the ceiling, a comparison with a peer). If any input
 * is invalid or missing, so is the result: a ratio to a ceiling that was not measured is no ratio.
 */
export function derived(
  base: Omit<Figure, 'value' | 'problems'>,
  inputs: readonly Figure[],
  compute: (...values: number[]) => number | null,
): Figure {
  const problems: string[] = [];
  for (const input of inputs) {
    if ((input.problems ?? []).length > 0) problems.push(`${input.name} is invalid`);
  }
  if (problems.length > 0) return { ...base, value: null, problems };
  const values = inputs.map((i) => i.value);
  if (values.some((v) => v === null || !Number.isFinite(v))) return { ...base, value: null };
  const value = compute(...(values as number[]));
  return { ...base, value: value !== null && Number.isFinite(value) ? value : null };
}

/** Thousands separators; two decimals below 10, one below 100, none above. */
export function formatNumber(value: number): string {
  const abs = Math.abs(value);
  const digits = abs === 0 || abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 0.01 ? 2 : 4;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** The value as printed: a figure that is not a clean measurement prints no number at all. */
export function formatValue(judged: Judged): string {
  if (judged.verdict === 'INVALID') return 'invalid';
  if (judged.value === null) return 'n/a';
  return `${formatNumber(judged.value)}${judged.unit ? ` ${judged.unit}` : ''}`;
}

export function tally(judged: readonly Judged[]): Record<Verdict, number> {
  const counts: Record<Verdict, number> = { PASS: 0, FAIL: 0, 'NO DATA': 0, INVALID: 0, INFO: 0 };
  for (const j of judged) counts[j.verdict]++;
  return counts;
}
