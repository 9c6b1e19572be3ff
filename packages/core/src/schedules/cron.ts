import { CronExpressionParser } from 'cron-parser';

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

const FIELD_NAMES = ['minute', 'hour', 'day of month', 'month', 'day of week'];
const NUMERIC_FIELD = /^[0-9*,/-]+$/;
const NAMED_FIELD = /^([0-9*,/-]|[A-Za-z]{3})+$/;
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
  parts.forEach((part, i) => {
    const allowed = i >= 3 ? NAMED_FIELD : NUMERIC_FIELD;
    if (!allowed.test(part)) throw new CronError(`${FIELD_NAMES[i]} field "${part}" has characters outside standard cron`);
  });
  let parsed;
  try {
    parsed = CronExpressionParser.parse(parts.join(' '), { tz: 'UTC', strict: false }).fields;
  } catch (error) {
    throw new CronError((error as Error).message);
  }
  const numbers = (values: readonly (number | string)[]) => values.filter((v): v is number => typeof v === 'number');
  const spec: CronSpec = {
    expression,
    minutes: new Set(numbers(parsed.minute.values)),
    hours: new Set(numbers(parsed.hour.values)),
    daysOfMonth: new Set(numbers(parsed.dayOfMonth.values)),
    months: new Set(numbers(parsed.month.values)),
    daysOfWeek: new Set(numbers(parsed.dayOfWeek.values).map((d) => d % 7)),
    domRestricted: !parts[2].startsWith('*'),
    dowRestricted: !parts[4].startsWith('*'),
  };
  if (!canEverFire(spec)) throw new CronError('can never fire: no selected month has the selected day of month');
  return spec;
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

// Feb 29 on a Monday-only rule can be 28 years away; give that room and stop.
const SEARCH_DAYS = 366 * 30;

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
