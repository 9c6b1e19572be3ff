/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  /** Family name -> TYPE (counter, gauge, histogram, summary). */
  types: Map<string, string>;
  samples: Sample[];
  /** The value of the one sample with this name and at least these labels; undefined when none. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** Every sample of this name. */
  all(name: string): Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** A sample value as Prometheus reads it (Go's ParseFloat: NaN and Inf in any case). */
function number(text: string): number | undefined {
  const special = text.toLowerCase();
  if (special === 'nan') return NaN;
  if (/^[+-]?inf(inity)?$/.test(special)) return special.startsWith('-') ? -Infinity : Infinity;
  const value = Number(text);
  return Number.isNaN(value) || text.trim() === '' ? undefined : value;
}

/**
 * Parses the Prometheus text format (version 0.0.4), failing on any line that is not a comment,
 * a blank or a well-formed sample, so a test reading it also checks that the service's output
 * is valid.
 */
export function parsePrometheus(text: string): Scrape {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type) types.set(type[1], type[2]);
      else if (!/^# HELP \S+ /.test(line)) throw new Error(`not a HELP or TYPE line: ${line}`);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (m[2] ?? '').matchAll(LABEL)) labels[key] = value.replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
    const value = number(m[3]);
    if (value === undefined) throw new Error(`not a number in: ${line}`);
    samples.push({ name: m[1], labels, value });
  }
  const fits = (s: Sample, name: string, labels: Record<string, string>) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v);
  return {
    types,
    samples,
    value: (name, labels = {}) => samples.find((s) => fits(s, name, labels))?.value,
    all: (name) => samples.filter((s) => s.name === name),
  };
}
