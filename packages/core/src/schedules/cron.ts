/** A parsed 5-field cron expression, evaluated in UTC with classic (Vixie) cron day rules. */
export interface CronSpec {
  readonly expression: string;
  readonly minutes: ReadonlySet<number>;
  readonly hours: ReadonlySet<number>;
  readonly daysOfMonth: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  /** 0-6, Sunday 0 (a 7 in the expression is folded into 0). */
  readonly daysOfWeek: ReadonlySet<number>;
  /** A day field is restricted unless it starts with `*`; both restricted means either may match. */
  readonly domRestricted: boolean;
  readonly dowRestricted: boolean;
}

export class CronError extends Error {}

const MACROS: Record<string, string> = {
  '@hourly': '0 * * * *',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@weekly': '0 0 * * 0',
  '@monthly': '0 0 1 * *',
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
};

interface FieldDef {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  /** Three-letter names, the first one meaning `min`. */
  readonly names?: readonly string[];
}

const FIELDS: readonly FieldDef[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] },
  { name: 'day of week', min: 0, max: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

const NUMERIC_CHARS = /^[0-9*,/-]+$/;
const NAMED_CHARS = /^[0-9A-Za-z*,/-]+$/;
// One list element: `*`, `a` or `a-b`, optionally followed by `/step`. A name is a whole
// value on its own, so `SUNMON` or `1JAN` are errors rather than digits glued together.
const ELEMENT = /^(?:(\*)|([0-9]+|[A-Za-z]+)(?:-([0-9]+|[A-Za-z]+))?)(?:\/([0-9]+))?$/;
// Days in each month in the longest year, so Feb 29 counts as a day that exists.
const MAX_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function parseCron(input: string): CronSpec {
  const trimmed = input.trim();
  if (trimmed.startsWith('@')) {
    const expanded = MACROS[trimmed.toLowerCase()];
    if (!expanded) throw new CronError(`unknown macro ${trimmed}; use one of ${Object.keys(MACROS).join(', ')}`);
    return parseFields(trimmed, expanded);
  }
  return parseFields(trimmed, trimmed);
}

function parseFields(expression: string, fields: string): CronSpec {
  const parts = fields.split(/\s+/);
  if (parts.length !== 5) throw new CronError(`must have exactly 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`);
  const [minutes, hours, daysOfMonth, months, daysOfWeek] = parts.map((part, i) => parseField(part, FIELDS[i]));
  const spec: CronSpec = {
    expression,
    minutes,
    hours,
    daysOfMonth,
    months,
    daysOfWeek: new Set([...daysOfWeek].map((d) => d % 7)),
    domRestricted: !parts[2].startsWith('*'),
    dowRestricted: !parts[4].startsWith('*'),
  };
  if (!canEverFire(spec)) throw new CronError('can never fire: no selected month has the selected day of month');
  return spec;
}

/**
 * The values of one field. Lists may overlap (`0,7`, `1-5,3`) as in classic cron; ranges may
 * not wrap (`FRI-MON`, `50-10`); `a/n` means `a-max/n`.
 */
function parseField(part: string, def: FieldDef): Set<number> {
  if (!(def.names ? NAMED_CHARS : NUMERIC_CHARS).test(part)) {
    throw new CronError(`${def.name} field "${part}" has characters outside standard cron`);
  }
  const values = new Set<number>();
  for (const element of part.split(',')) {
    const match = ELEMENT.exec(element);
    if (!match) throw new CronError(`${def.name} field "${part}" has an invalid element "${element}"`);
    const [, star, first, last, stepText] = match;
    let from = def.min;
    let to = def.max;
    if (!star) {
      from = valueOf(first, def);
      to = last !== undefined ? valueOf(last, def) : stepText !== undefined ? def.max : from;
      if (from > to) throw new CronError(`${def.name} range "${element}" wraps around; ranges must run from low to high`);
    }
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!(step >= 1)) throw new CronError(`${def.name} step in "${element}" must be at least 1`);
    for (let v = from; v <= to; v += step) values.add(v);
  }
  return values;
}

function valueOf(token: string, def: FieldDef): number {
  let value: number;
  if (/^[0-9]+$/.test(token)) {
    value = Number(token);
  } else {
    const index = def.names?.indexOf(token.toLowerCase()) ?? -1;
    if (index < 0) throw new CronError(`${def.name} field has an unknown name "${token}"`);
    value = def.min + index;
  }
  if (value < def.min || value > def.max) throw new CronError(`${def.name} value ${token} is outside ${def.min}-${def.max}`);
  return value;
}

// Only a restricted day of month with an unrestricted day of week can select no real day:
// otherwise the day of week alone (either rule) or day 1 (every `*` form includes it) fires.
function canEverFire(spec: CronSpec): boolean {
  if (!spec.domRestricted || spec.dowRestricted) return true;
  for (const month of spec.months) {
    for (const day of spec.daysOfMonth) if (day <= MAX_DAYS[month - 1]) return true;
  }
  return false;
}

function dayMatches(spec: CronSpec, date: Date): boolean {
  const dom = spec.daysOfMonth.has(date.getUTCDate());
  const dow = spec.daysOfWeek.has(date.getUTCDay());
  return spec.domRestricted && spec.dowRestricted ? dom || dow : dom && dow;
}

function firstAtOrAfter(values: ReadonlySet<number>, from: number): number | undefined {
  let best: number | undefined;
  for (const v of values) if (v >= from && (best === undefined || v < best)) best = v;
  return best;
}

// Feb 29 that must also fall on a Sunday (`0 0 29 2 */7`) can be 40 years away (2088 to
// 2128, across the skipped leap year 2100); give that room and stop.
const SEARCH_DAYS = 366 * 41;

/** The first fire strictly after `after`, at a whole minute. */
export function nextCronFire(spec: CronSpec, after: Date): Date {
  const start = new Date(Math.floor(after.getTime() / 60_000) * 60_000 + 60_000);
  let day = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate()));
  let minHour = start.getUTCHours();
  let minMinute = start.getUTCMinutes();
  for (let i = 0; i < SEARCH_DAYS; i++) {
    if (spec.months.has(day.getUTCMonth() + 1) && dayMatches(spec, day)) {
      for (let hour = firstAtOrAfter(spec.hours, minHour); hour !== undefined; hour = firstAtOrAfter(spec.hours, hour + 1)) {
        const minute = firstAtOrAfter(spec.minutes, hour === minHour ? minMinute : 0);
        if (minute !== undefined) return new Date(day.getTime() + hour * 3_600_000 + minute * 60_000);
      }
    }
    day = new Date(day.getTime() + 86_400_000);
    minHour = 0;
    minMinute = 0;
  }
  throw new CronError(`no fire within ${SEARCH_DAYS} days of ${after.toISOString()}`);
}
