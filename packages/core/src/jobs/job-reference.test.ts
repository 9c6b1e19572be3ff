import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_CLASSES, ERROR_STATUS, JOB_KINDS } from '@cronsvc/contracts';
import { validate } from '../validation/validate.js';
import { jobSchema } from './job-schema.js';

// docs/JOBS.md, the job reference, held to the validation schemas: every field, default and
// limit of a job, its request, retry policy, schedule and steps is in the reference's tables,
// and every field in those tables is in the schemas. Also its error codes and classes, and
// its examples, which must be valid jobs.

const JOBS_MD = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../docs/JOBS.md');
const reference = readFileSync(JOBS_MD, 'utf8');

interface Description {
  type: string;
  flags?: { presence?: string; default?: unknown; only?: boolean };
  rules?: { name: string; args?: { limit?: number } }[];
  allow?: unknown[];
  keys?: Record<string, Description>;
  items?: Description[];
  whens?: { then?: Description; otherwise?: Description; switch?: { is: { allow: unknown[] }; then: Description }[] }[];
  matches?: { switch?: { is: { allow: unknown[] }; then: Description }[] }[];
}

/** The rows of the table marked `<!-- reference: name -->`, by each backticked name in their first cell. */
function table(name: string): Map<string, string[]> {
  const marker = `<!-- reference: ${name} -->\n`;
  const start = reference.indexOf(marker);
  if (start === -1) throw new Error(`JOBS.md has no table marked "${name}"`);
  const rows = new Map<string, string[]>();
  for (const line of reference.slice(start + marker.length).split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
    for (const [, field] of cells[0].matchAll(/`([^`]+)`/g)) rows.set(field, cells);
  }
  return rows;
}

const describeJob = jobSchema.describe() as Description;
const keysOf = (d: Description) => d.keys ?? {};
/** A field chosen by the job's kind, as the kind that uses it sees it. */
const used = (d: Description): Description => d.whens?.[0]?.then ?? d.whens?.[0]?.switch?.[0]?.then ?? d;
const kindSwitch = (d: Description) => d.whens![0].switch!.map((c) => ({ value: c.is.allow.at(-1) as string, then: c.then }));

const job = keysOf(describeJob);
const request = used(job.request);
const steps = used(job.steps).items![0].matches![0].switch!.map((c) => ({ type: c.is.allow.at(-1) as string, fields: keysOf(c.then) }));
// Fields every step type has with the same rules; the others are listed by type.
const sameIn = (key: string) => steps.every((s) => JSON.stringify(s.fields[key]) === JSON.stringify(steps[0].fields[key]));
const commonStepFields = Object.keys(steps[0].fields).filter(sameIn);
const union = (objects: Record<string, Description>[]) => Object.assign({}, ...[...objects].reverse()) as Record<string, Description>;

const SCHEMAS: Record<string, Record<string, Description>> = {
  job: Object.fromEntries(Object.entries(job).map(([k, d]) => [k, used(d)])),
  schedule: union(kindSwitch(job.schedule).map((c) => keysOf(c.then))),
  request: keysOf(request),
  response_matcher: keysOf(request.keys!.response_matcher),
  response_assertions: keysOf(request.keys!.response_assertions),
  assertion: union(Object.values(keysOf(request.keys!.response_assertions)).map((group) => keysOf(group.items![0]))),
  retry_policy: keysOf(job.retry_policy),
  step: Object.fromEntries(commonStepFields.map((k) => [k, steps[0].fields[k]])),
  ...Object.fromEntries(
    steps.map((s) => [`step ${s.type}`, Object.fromEntries(Object.entries(s.fields).filter(([k]) => !commonStepFields.includes(k)))]),
  ),
};

const squeeze = (text: string) => text.replace(/\s+/g, '');
const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
const TYPE_WORDS: Record<string, string[]> = { string: ['string'], number: ['integer', 'number'], array: ['array'], object: ['object'], boolean: ['boolean'] };

/** What the row of a field must say, given how the schema describes it. */
function problemsOf(field: string, d: Description, row: string[]): string[] {
  const [, type, byDefault, limits] = row;
  const problems: string[] = [];
  const need = (ok: boolean, what: string) => ok || problems.push(`${field}: ${what}`);
  if (d.flags?.presence === 'required') need(byDefault.includes('required'), 'the Default column must say "required"');
  if (d.flags?.presence === 'forbidden') need(row.join(' ').includes('refused'), 'the row must say it is refused');
  const def = d.flags?.default;
  const deep = typeof def === 'object' && def !== null && 'special' in def;
  if (def !== undefined && !deep) need(squeeze(byDefault).includes(squeeze(shown(def))), `the Default column must show ${shown(def)}`);
  for (const rule of [...(d.rules ?? []), ...(d.items?.[0]?.rules ?? [])]) {
    if (rule.args?.limit !== undefined && ['min', 'max', 'length'].includes(rule.name)) {
      need(limits.replace(/,/g, '').includes(String(rule.args.limit)), `the Limits column must show ${rule.name} ${rule.args.limit}`);
    }
    if (rule.name === 'integer') need(type.includes('integer'), 'the Type column must say "integer"');
  }
  if (d.flags?.only) for (const value of d.allow ?? []) if (typeof value !== 'object') need(type.includes(`\`${value}\``), `the Type column must list \`${value}\``);
  if (!d.flags?.only && d.allow?.includes(null)) need(type.includes('null'), 'the Type column must say it may be null');
  const words = TYPE_WORDS[d.type];
  if (words && d.flags?.presence !== 'forbidden' && !d.flags?.only) need(words.some((w) => type.includes(w)), `the Type column must say ${words.join(' or ')}`);
  return problems;
}

describe('docs/JOBS.md, the job reference', () => {
  it.each(Object.keys(SCHEMAS))('lists exactly the fields of %s that the schema has', (name) => {
    expect([...table(name).keys()].sort()).toEqual(Object.keys(SCHEMAS[name]).sort());
  });

  it.each(Object.keys(SCHEMAS))('gives the type, default and limits of every field of %s as the schema does', (name) => {
    const rows = table(name);
    const problems = Object.entries(SCHEMAS[name]).flatMap(([field, d]) => (rows.has(field) ? problemsOf(field, d, rows.get(field)!) : []));
    expect(problems).toEqual([]);
  });

  it('names every kind, error code with its status, and error class', () => {
    expect([...reference.matchAll(/^\| `([a-z_]+)` \| (?:every|on a|once|when)/gm)].map((m) => m[1])).toEqual([...JOB_KINDS]);
    const codes = table('error codes');
    expect(Object.fromEntries([...codes].map(([code, cells]) => [code, Number(cells[1])]))).toEqual(ERROR_STATUS);
    const classes = [...table('error classes').keys()];
    expect(classes.filter((c) => !c.startsWith('HTTP_')).sort()).toEqual([...ERROR_CLASSES].sort());
    expect(classes).toContain('HTTP_5XX');
  });

  it('has an example of each kind, and each is a valid job', () => {
    const examples = [...reference.matchAll(/<!-- example: (\w+) -->\n```json\n([\s\S]*?)\n```/g)];
    expect(examples.map((m) => m[1])).toEqual([...JOB_KINDS]);
    for (const [, kind, text] of examples) {
      const body = JSON.parse(text) as { kind: string };
      expect(body.kind).toBe(kind);
      expect(() => validate(jobSchema, body, { context: { now: new Date('2026-01-01T00:00:00Z') } })).not.toThrow();
    }
  });
});
