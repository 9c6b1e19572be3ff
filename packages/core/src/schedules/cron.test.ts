import { CronError, nextCronFire, parseCron } from './cron.js';

const at = (iso: string) => new Date(iso);

/** The next fire of `expression` strictly after `after`, as an ISO string. */
function next(expression: string, after: string): string {
  return nextCronFire(parseCron(expression), at(after)).toISOString();
}

/** The next `count` fires of `expression`, each one strictly after the previous. */
function sequence(expression: string, after: string, count: number): string[] {
  const spec = parseCron(expression);
  const fires: string[] = [];
  let from = at(after);
  for (let i = 0; i < count; i++) {
    from = nextCronFire(spec, from);
    fires.push(from.toISOString());
  }
  return fires;
}

function cronErrorOf(expression: string): CronError {
  try {
    parseCron(expression);
  } catch (error) {
    return error as CronError;
  }
  throw new Error(`expected "${expression}" to be rejected`);
}

// 2024-01-15 is a Monday.
const MONDAY_MORNING = '2024-01-15T10:07:30.000Z';

describe('nextCronFire: minute and hour fields', () => {
  it.each([
    ['every minute', '* * * * *', MONDAY_MORNING, '2024-01-15T10:08:00.000Z'],
    ['hourly on the hour', '0 * * * *', MONDAY_MORNING, '2024-01-15T11:00:00.000Z'],
    ['every 15 minutes', '*/15 * * * *', MONDAY_MORNING, '2024-01-15T10:15:00.000Z'],
    ['a stepped range a-b/n', '10-40/10 * * * *', MONDAY_MORNING, '2024-01-15T10:10:00.000Z'],
    ['a stepped range past its end rolls to the next hour', '10-40/10 * * * *', '2024-01-15T10:40:00.000Z', '2024-01-15T11:10:00.000Z'],
    ['a start with a step a/n (a to the end of the field)', '5/20 * * * *', MONDAY_MORNING, '2024-01-15T10:25:00.000Z'],
    ['a/n wraps into the next hour after its last value', '5/20 * * * *', '2024-01-15T10:45:00.000Z', '2024-01-15T11:05:00.000Z'],
    ['a list of minutes and hours', '0,30 9,17 * * *', MONDAY_MORNING, '2024-01-15T17:00:00.000Z'],
    ['a list of hours rolls to the first hour of the next day', '0,30 9,17 * * *', '2024-01-15T17:30:00.000Z', '2024-01-16T09:00:00.000Z'],
    ['a range of minutes', '20-22 * * * *', '2024-01-15T10:21:00.000Z', '2024-01-15T10:22:00.000Z'],
    ['a range of hours', '0 9-17 * * *', '2024-01-15T17:00:00.000Z', '2024-01-16T09:00:00.000Z'],
    ['a single time of day later today', '30 22 * * *', MONDAY_MORNING, '2024-01-15T22:30:00.000Z'],
    ['a single time of day already passed today', '30 2 * * *', MONDAY_MORNING, '2024-01-16T02:30:00.000Z'],
    ['a time at the end of the day rolls over the month', '59 23 * * *', '2024-01-31T23:59:00.000Z', '2024-02-01T23:59:00.000Z'],
    ['the first of the year from mid-year', '0 0 1 1 *', '2024-06-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z'],
    ['a range of months', '0 0 1 6-8 *', '2024-08-01T00:00:00.000Z', '2025-06-01T00:00:00.000Z'],
    ['a list of months', '0 0 15 3,9 *', '2024-03-15T00:00:00.000Z', '2024-09-15T00:00:00.000Z'],
  ])('fires at %s', (_what, expression, after, expected) => {
    expect(next(expression, after)).toBe(expected);
  });

  it('fires on weekdays only in working hours and skips the weekend', () => {
    expect(sequence('0 9-17 * * 1-5', '2024-01-19T16:30:00.000Z', 3)).toEqual([
      '2024-01-19T17:00:00.000Z',
      '2024-01-22T09:00:00.000Z',
      '2024-01-22T10:00:00.000Z',
    ]);
  });

  it('walks every 15 minutes through an hour boundary without skipping or repeating', () => {
    expect(sequence('*/15 * * * *', '2024-01-15T10:31:00.000Z', 5)).toEqual([
      '2024-01-15T10:45:00.000Z',
      '2024-01-15T11:00:00.000Z',
      '2024-01-15T11:15:00.000Z',
      '2024-01-15T11:30:00.000Z',
      '2024-01-15T11:45:00.000Z',
    ]);
  });

  it('matches a brute-force minute-by-minute scan of a week', () => {
    // Every 20 minutes from 08:00 to 11:59 on Tuesdays and Thursdays, plus nothing else.
    const expression = '*/20 8-11 * * 2,4';
    const matches = (d: Date) => d.getUTCMinutes() % 20 === 0 && d.getUTCHours() >= 8 && d.getUTCHours() <= 11 && [2, 4].includes(d.getUTCDay());
    const start = at('2024-01-15T00:00:00.000Z').getTime();
    const expected: string[] = [];
    for (let t = start + 60_000; t < start + 7 * 86_400_000; t += 60_000) if (matches(new Date(t))) expected.push(new Date(t).toISOString());
    expect(expected).toHaveLength(2 * 4 * 3);
    expect(sequence(expression, '2024-01-15T00:00:00.000Z', expected.length)).toEqual(expected);
  });
});

describe('nextCronFire: strictly after, whole minutes', () => {
  it('never returns `after` itself when `after` is exactly a fire time', () => {
    expect(next('*/15 * * * *', '2024-01-15T10:15:00.000Z')).toBe('2024-01-15T10:30:00.000Z');
    expect(next('0 0 * * *', '2024-01-15T00:00:00.000Z')).toBe('2024-01-16T00:00:00.000Z');
  });

  it('fires at the coming minute when `after` is a millisecond before it', () => {
    expect(next('*/15 * * * *', '2024-01-15T10:14:59.999Z')).toBe('2024-01-15T10:15:00.000Z');
  });

  it('skips the current minute when `after` is a millisecond into it', () => {
    expect(next('*/15 * * * *', '2024-01-15T10:15:00.001Z')).toBe('2024-01-15T10:30:00.000Z');
    expect(next('* * * * *', '2024-01-15T10:15:59.999Z')).toBe('2024-01-15T10:16:00.000Z');
  });

  it('returns a whole minute with zero seconds and milliseconds', () => {
    const fire = nextCronFire(parseCron('* * * * *'), at('2024-01-15T10:07:42.123Z'));
    expect(fire.getUTCSeconds()).toBe(0);
    expect(fire.getUTCMilliseconds()).toBe(0);
    expect(fire.getTime() % 60_000).toBe(0);
    expect(fire.toISOString()).toBe('2024-01-15T10:08:00.000Z');
  });

  it('returns a time strictly after `after` for many starting points', () => {
    const spec = parseCron('*/7 */3 * * *');
    for (let t = at('2024-01-15T00:00:00.000Z').getTime(); t < at('2024-01-16T00:00:00.000Z').getTime(); t += 61_003) {
      const fire = nextCronFire(spec, new Date(t));
      expect(fire.getTime()).toBeGreaterThan(t);
      expect(fire.getTime() % 60_000).toBe(0);
    }
  });
});

describe('nextCronFire: February 29', () => {
  it('jumps from a non-leap year to the next leap year', () => {
    expect(next('0 0 29 2 *', '2025-03-01T00:00:00.000Z')).toBe('2028-02-29T00:00:00.000Z');
  });

  it('fires on Feb 29 of the current leap year when it is still ahead', () => {
    expect(next('0 0 29 2 *', '2023-06-01T00:00:00.000Z')).toBe('2024-02-29T00:00:00.000Z');
  });

  it('moves to the next leap year once Feb 29 has fired', () => {
    expect(next('0 0 29 2 *', '2024-02-29T00:00:00.000Z')).toBe('2028-02-29T00:00:00.000Z');
  });

  it('skips 2100, which is not a leap year', () => {
    expect(next('0 0 29 2 *', '2097-01-01T00:00:00.000Z')).toBe('2104-02-29T00:00:00.000Z');
  });

  it('finds a Feb 29 that must also be a Sunday 40 years away (across 2100)', () => {
    // Day of month restricted, day of week `*/7` (unrestricted, so AND): Feb 29 on a Sunday.
    expect(next('0 0 29 2 */7', '2088-03-01T00:00:00.000Z')).toBe('2128-02-29T00:00:00.000Z');
  });
});

describe('nextCronFire: day-of-month and day-of-week', () => {
  it('fires on the 13th or on Fridays when both day fields are restricted', () => {
    // January 2024: Fridays 5, 12, 19, 26; Saturday the 13th.
    expect(sequence('0 0 13 * 5', '2024-01-01T00:00:00.000Z', 6)).toEqual([
      '2024-01-05T00:00:00.000Z',
      '2024-01-12T00:00:00.000Z',
      '2024-01-13T00:00:00.000Z',
      '2024-01-19T00:00:00.000Z',
      '2024-01-26T00:00:00.000Z',
      '2024-02-02T00:00:00.000Z',
    ]);
  });

  it('fires once on a Friday the 13th, where both rules hold', () => {
    // 2024-09-13 is a Friday.
    expect(sequence('0 0 13 * 5', '2024-09-12T00:00:00.000Z', 2)).toEqual(['2024-09-13T00:00:00.000Z', '2024-09-20T00:00:00.000Z']);
  });

  it('treats */2 in day of month as unrestricted, so with a restricted day of week both must match', () => {
    // Mondays in January 2024: 1, 8, 15, 22, 29; odd ones after the 1st: 15 and 29.
    expect(sequence('0 0 */2 * 1', '2024-01-01T00:00:00.000Z', 3)).toEqual([
      '2024-01-15T00:00:00.000Z',
      '2024-01-29T00:00:00.000Z',
      '2024-02-05T00:00:00.000Z',
    ]);
    const spec = parseCron('0 0 */2 * 1');
    expect(spec.domRestricted).toBe(false);
    expect(spec.dowRestricted).toBe(true);
  });

  it('treats 1-31/2 in day of month as restricted, so with a restricted day of week either matches', () => {
    expect(sequence('0 0 1-31/2 * 1', '2024-01-01T00:00:00.000Z', 4)).toEqual([
      '2024-01-03T00:00:00.000Z',
      '2024-01-05T00:00:00.000Z',
      '2024-01-07T00:00:00.000Z',
      '2024-01-08T00:00:00.000Z',
    ]);
    expect(parseCron('0 0 1-31/2 * 1').domRestricted).toBe(true);
  });

  it('treats */2 in day of week as unrestricted, so with a restricted day of month both must match', () => {
    // The 13th on a Sunday, Tuesday, Thursday or Saturday: 2024-01-13 Sat, 02-13 Tue, 04-13 Sat.
    expect(sequence('0 0 13 * */2', '2024-01-01T00:00:00.000Z', 3)).toEqual([
      '2024-01-13T00:00:00.000Z',
      '2024-02-13T00:00:00.000Z',
      '2024-04-13T00:00:00.000Z',
    ]);
  });

  it('fires only on the given day of week when day of month is *', () => {
    expect(next('0 0 * * 3', MONDAY_MORNING)).toBe('2024-01-17T00:00:00.000Z');
  });

  it('fires only on the given day of month when day of week is *', () => {
    expect(next('0 0 20 * *', MONDAY_MORNING)).toBe('2024-01-20T00:00:00.000Z');
  });

  it('fires on Mondays in February when day 30 of February is combined with a restricted day of week', () => {
    // 0 0 30 2 mon can fire: with both fields restricted, Mondays in February match.
    expect(next('0 0 30 2 mon', '2024-01-01T00:00:00.000Z')).toBe('2024-02-05T00:00:00.000Z');
  });

  it('skips months without day 31', () => {
    expect(next('0 0 31 * *', '2024-04-01T00:00:00.000Z')).toBe('2024-05-31T00:00:00.000Z');
  });
});

describe('parseCron: Sunday as 0 or 7', () => {
  it.each(['0 0 * * 0', '0 0 * * 7', '0 0 * * SUN', '0 0 * * sun'])('reads %s as Sunday', (expression) => {
    expect([...parseCron(expression).daysOfWeek]).toEqual([0]);
    expect(next(expression, MONDAY_MORNING)).toBe('2024-01-21T00:00:00.000Z');
  });

  it('includes Sunday in the range 5-7', () => {
    expect(sequence('0 0 * * 5-7', MONDAY_MORNING, 4)).toEqual([
      '2024-01-19T00:00:00.000Z',
      '2024-01-20T00:00:00.000Z',
      '2024-01-21T00:00:00.000Z',
      '2024-01-26T00:00:00.000Z',
    ]);
  });

  it('accepts 0 and 7 together, as classic cron does', () => {
    expect([...parseCron('0 0 * * 0,7').daysOfWeek]).toEqual([0]);
  });

  it('reads 0-7 as every day of the week', () => {
    expect([...parseCron('0 0 * * 0-7').daysOfWeek].sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});

describe('parseCron: names', () => {
  it.each([
    ['JAN', '0 0 1 JAN *', '2025-01-01T00:00:00.000Z'],
    ['jan', '0 0 1 jan *', '2025-01-01T00:00:00.000Z'],
    ['mixed-case month range', '0 0 1 jAn-Mar *', '2024-02-01T00:00:00.000Z'],
    ['mon', '0 0 * * mon', '2024-01-22T00:00:00.000Z'],
    ['MON', '0 0 * * MON', '2024-01-22T00:00:00.000Z'],
    ['Fri', '0 12 * * Fri', '2024-01-19T12:00:00.000Z'],
    ['a day range with a step', '0 0 * * MON-FRI/2', '2024-01-17T00:00:00.000Z'],
    ['a day list', '0 0 * * TUE,thu', '2024-01-16T00:00:00.000Z'],
  ])('accepts %s', (_what, expression, expected) => {
    expect(next(expression, MONDAY_MORNING)).toBe(expected);
  });

  it('gives the same schedule for names and numbers', () => {
    const named = parseCron('0 0 * JUL-SEP MON-FRI');
    const numbered = parseCron('0 0 * 7-9 1-5');
    expect([...named.months]).toEqual([...numbered.months]);
    expect([...named.daysOfWeek]).toEqual([...numbered.daysOfWeek]);
  });

  it.each([
    ['a day name in the month field', '0 0 * MON *'],
    ['a month name in the day-of-week field', '0 0 * * JAN'],
    ['a full day name', '0 0 * * monday'],
    ['two names glued together', '0 0 * * SUNMON'],
    ['two month names glued together', '0 0 * JANFEB *'],
    ['a number glued to a name', '0 0 * 1JAN *'],
    ['a name glued to a number', '0 0 * * MON1'],
    ['a name in the minute field', 'MON * * * *'],
    ['a name in the day-of-month field', '0 0 MON * *'],
  ])('rejects %s', (_what, expression) => {
    expect(() => parseCron(expression)).toThrow(CronError);
  });
});

describe('parseCron: macros', () => {
  it.each([
    ['@hourly', '2024-01-15T11:00:00.000Z'],
    ['@daily', '2024-01-16T00:00:00.000Z'],
    ['@midnight', '2024-01-16T00:00:00.000Z'],
    ['@weekly', '2024-01-21T00:00:00.000Z'],
    ['@monthly', '2024-02-01T00:00:00.000Z'],
    ['@yearly', '2025-01-01T00:00:00.000Z'],
    ['@annually', '2025-01-01T00:00:00.000Z'],
  ])('%s fires next at %s', (macro, expected) => {
    expect(next(macro, MONDAY_MORNING)).toBe(expected);
  });

  it('keeps the macro as the expression', () => {
    expect(parseCron('@daily').expression).toBe('@daily');
  });

  it.each(['@reboot', '@every', '@every 5m', '@minutely', '@', '@hourly 5'])('rejects the unknown macro %s', (macro) => {
    expect(cronErrorOf(macro).message).toMatch(/unknown macro/);
  });
});

describe('parseCron: rejected expressions', () => {
  it.each([
    ['a wrapping day-of-week range', '0 0 * * FRI-MON'],
    ['a wrapping numeric day-of-week range', '0 0 * * 7-1'],
    ['a wrapping minute range', '50-10 * * * *'],
    ['a wrapping month range', '0 0 1 DEC-JAN *'],
    ['a wrapping hour range', '0 22-2 * * *'],
  ])('rejects %s', (_what, expression) => {
    expect(cronErrorOf(expression).message).toMatch(/wrap/);
  });

  it.each([
    ['Feb 30', '0 0 30 2 *'],
    ['Feb 30 and 31', '0 0 30,31 2 *'],
    ['the 31st of 30-day months', '0 0 31 4,6,9,11 *'],
    ['Feb 30 with a */n day of week (still AND)', '0 0 30 2 */2'],
  ])('rejects %s, which can never fire', (_what, expression) => {
    expect(cronErrorOf(expression).message).toMatch(/never fire/);
  });

  it.each([
    ['6 fields (seconds)', '0 0 0 * * *'],
    ['6 fields (year)', '0 0 1 1 * 2030'],
    ['4 fields', '0 0 * *'],
    ['1 field', '*'],
    ['an empty string', ''],
    ['only spaces', '   '],
  ])('rejects %s', (_what, expression) => {
    expect(cronErrorOf(expression).message).toMatch(/exactly 5 fields/);
  });

  it.each([
    ['minute 60', '60 * * * *'],
    ['hour 24', '0 24 * * *'],
    ['day of month 0', '0 0 0 * *'],
    ['day of month 32', '0 0 32 * *'],
    ['month 0', '0 0 1 0 *'],
    ['month 13', '0 0 1 13 *'],
    ['day of week 8', '0 0 * * 8'],
    ['a range ending out of range', '0-60 * * * *'],
    ['a start out of range with a step', '70/5 * * * *'],
  ])('rejects the out-of-range %s', (_what, expression) => {
    expect(cronErrorOf(expression).message).toMatch(/outside/);
  });

  it.each([
    ['L in day of month', '0 0 L * *'],
    ['L in day of week', '0 0 * * 5L'],
    ['# in day of week', '0 0 * * 5#2'],
    ['? in day of month', '0 0 ? * *'],
    ['? in day of week', '0 0 * * ?'],
    ['W in day of month', '0 0 15W * *'],
    ['H in minutes', 'H * * * *'],
    ['H in day of week', '0 0 * * H'],
    ['H with a range', 'H(0-29) * * * *'],
  ])('rejects the non-standard %s', (_what, expression) => {
    expect(() => parseCron(expression)).toThrow(CronError);
  });

  it.each([
    ['a zero step', '*/0 * * * *'],
    ['a zero step after a start', '5/0 * * * *'],
    ['an empty step', '*/ * * * *'],
    ['a step without a start', '/5 * * * *'],
    ['a negative number', '-1 * * * *'],
    ['an open range', '1- * * * *'],
    ['a range with three ends', '1-2-3 * * * *'],
    ['two steps', '*/5/2 * * * *'],
    ['an empty list element', '1,,2 * * * *'],
    ['a double star', '** * * * *'],
    ['a range from a star', '*-5 * * * *'],
  ])('rejects malformed syntax: %s', (_what, expression) => {
    expect(() => parseCron(expression)).toThrow(CronError);
  });

  it('throws CronError, an Error subclass, with a readable message', () => {
    const error = cronErrorOf('60 * * * *');
    expect(error).toBeInstanceOf(CronError);
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toContain('minute');
  });
});

describe('parseCron: accepted forms', () => {
  it('accepts overlapping list elements, as classic cron does', () => {
    expect([...parseCron('1-5,3 * * * *').minutes].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
    expect([...parseCron('*/15,30 * * * *').minutes].sort((a, b) => a - b)).toEqual([0, 15, 30, 45]);
  });

  it('accepts a step wider than its range, keeping only the start', () => {
    expect([...parseCron('0 0 1-31/40 * *').daysOfMonth]).toEqual([1]);
  });

  it('accepts extra whitespace and tabs between and around fields', () => {
    expect(next('  0\t12   * * *  ', MONDAY_MORNING)).toBe('2024-01-15T12:00:00.000Z');
  });

  it('accepts leading zeros', () => {
    expect([...parseCron('05 09 * * *').minutes]).toEqual([5]);
  });

  it('expands */n from the field minimum', () => {
    expect([...parseCron('0 0 */10 * *').daysOfMonth]).toEqual([1, 11, 21, 31]);
    expect([...parseCron('0 0 1 */5 *').months]).toEqual([1, 6, 11]);
  });

  it('marks a day field restricted unless it starts with *', () => {
    expect(parseCron('0 0 * * *')).toMatchObject({ domRestricted: false, dowRestricted: false });
    expect(parseCron('0 0 */3 * */2')).toMatchObject({ domRestricted: false, dowRestricted: false });
    expect(parseCron('0 0 1 * 1')).toMatchObject({ domRestricted: true, dowRestricted: true });
    expect(parseCron('0 0 1-31 * 0-7')).toMatchObject({ domRestricted: true, dowRestricted: true });
  });
});
