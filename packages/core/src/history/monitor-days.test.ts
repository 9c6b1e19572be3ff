import { monitorDays, splitByDay } from './monitor-days.js';

const H = 3_600_000;
const at = (iso: string) => Date.parse(iso);
const dates = ['2030-01-01', '2030-01-02', '2030-01-03', '2030-01-04'];

describe('splitByDay', () => {
  it('gives each UTC day the part of the stretch that falls on it', () => {
    expect([...splitByDay(at('2030-01-01T22:00:00Z'), at('2030-01-03T01:30:00Z'))]).toEqual([
      ['2030-01-01', 2 * H],
      ['2030-01-02', 24 * H],
      ['2030-01-03', 1.5 * H],
    ]);
  });

  it('has nothing for an empty or backward stretch, and no day for a stretch ending at midnight', () => {
    expect(splitByDay(at('2030-01-02T00:00:00Z'), at('2030-01-02T00:00:00Z')).size).toBe(0);
    expect(splitByDay(at('2030-01-02T05:00:00Z'), at('2030-01-02T04:00:00Z')).size).toBe(0);
    expect([...splitByDay(at('2030-01-01T23:00:00Z'), at('2030-01-02T00:00:00Z'))]).toEqual([['2030-01-01', H]]);
  });
});

describe('monitorDays', () => {
  const now = new Date('2030-01-04T06:00:00Z');

  it('marks a day down when the monitor was down at any time of it, up when only up, none otherwise', () => {
    const perDay = new Map([
      ['2030-01-02', { upMs: 23 * H, downMs: 60_000 }],
      ['2030-01-03', { upMs: 24 * H, downMs: 0 }],
    ]);
    const { days } = monitorDays(dates, perDay, { state: 'paused', since: new Date('2030-01-04T00:00:00Z') }, now);
    expect(days).toEqual([
      { date: '2030-01-01', state: 'none' },
      { date: '2030-01-02', state: 'down' },
      { date: '2030-01-03', state: 'up' },
      { date: '2030-01-04', state: 'none' },
    ]);
  });

  it('adds the current stretch, up or down, to the days it spans until now', () => {
    const perDay = new Map([['2030-01-03', { upMs: 12 * H, downMs: 0 }]]);
    const down = monitorDays(dates, perDay, { state: 'down', since: new Date('2030-01-03T12:00:00Z') }, now);
    expect(down.days.map((d) => d.state)).toEqual(['none', 'none', 'down', 'down']);
    // 12 h up; down 12 h on the 3rd and 6 h on the 4th.
    expect(down.uptime).toBeCloseTo(12 / 30);
    const up = monitorDays(dates, new Map(), { state: 'up', since: new Date('2030-01-02T18:00:00Z') }, now);
    expect(up.days.map((d) => d.state)).toEqual(['none', 'up', 'up', 'up']);
    expect(up.uptime).toBe(1);
  });

  it('counts only the window: a stretch that began before it starts at its first day', () => {
    const { days, uptime } = monitorDays(dates, new Map(), { state: 'down', since: new Date('2029-06-01T00:00:00Z') }, now);
    expect(days.every((d) => d.state === 'down')).toBe(true);
    expect(uptime).toBe(0);
  });

  it('has no uptime when the monitor was never up or down in the window (new, paused)', () => {
    expect(monitorDays(dates, new Map(), { state: 'new', since: new Date('2030-01-01T00:00:00Z') }, now)).toEqual({
      days: dates.map((date) => ({ date, state: 'none' })),
      uptime: null,
    });
  });

  it('weighs uptime by time, not by days', () => {
    const perDay = new Map([
      ['2030-01-01', { upMs: 24 * H, downMs: 0 }],
      ['2030-01-02', { upMs: 18 * H, downMs: 6 * H }],
    ]);
    const { uptime } = monitorDays(dates.slice(0, 2), perDay, { state: 'paused', since: new Date('2030-01-03T00:00:00Z') }, now);
    expect(uptime).toBeCloseTo(42 / 48);
  });
});
