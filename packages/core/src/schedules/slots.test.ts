import { isMissedWindow, jitterOffsetMs, MAX_WINDOW_SLOTS, slotsFrom } from './slots.js';

const at = (iso: string) => new Date(iso);
const isos = (dates: Date[]) => dates.map((d) => d.toISOString());
const ANCHOR = at('2024-01-01T00:00:00.000Z');
const everyTen = { kind: 'recurring', schedule: { every_n_minutes: 10 }, scheduleAnchor: ANCHOR };
const hourly = { kind: 'cron', schedule: { cron: '0 * * * *' }, scheduleAnchor: ANCHOR };

describe('slotsFrom', () => {
  it('lists the recurring grid from the first slot up to and including the end', () => {
    const { slots, more } = slotsFrom(everyTen, at('2024-01-01T00:10:00.000Z'), at('2024-01-01T00:40:00.000Z'));
    expect(isos(slots)).toEqual(['2024-01-01T00:10:00.000Z', '2024-01-01T00:20:00.000Z', '2024-01-01T00:30:00.000Z', '2024-01-01T00:40:00.000Z']);
    expect(more).toBe(false);
  });

  it('lists cron slots, and none when the first slot lies after the end', () => {
    expect(isos(slotsFrom(hourly, at('2024-01-15T10:00:00.000Z'), at('2024-01-15T12:59:59.999Z')).slots)).toEqual([
      '2024-01-15T10:00:00.000Z', '2024-01-15T11:00:00.000Z', '2024-01-15T12:00:00.000Z',
    ]);
    expect(slotsFrom(hourly, at('2024-01-15T10:00:00.000Z'), at('2024-01-15T09:59:59.999Z')).slots).toEqual([]);
  });

  it('gives a kind that does not repeat its one slot, however long ago', () => {
    const scheduled = { kind: 'scheduled', schedule: { run_at: '2024-01-15T10:00:00.000Z' }, scheduleAnchor: ANCHOR };
    expect(isos(slotsFrom(scheduled, at('2024-01-15T10:00:00.000Z'), at('2024-03-01T00:00:00.000Z')).slots)).toEqual(['2024-01-15T10:00:00.000Z']);
  });

  it('stops at the cap and says the schedule had more', () => {
    const minutely = { kind: 'recurring', schedule: { every_n_minutes: 1 }, scheduleAnchor: ANCHOR };
    const { slots, more } = slotsFrom(minutely, at('2024-01-01T00:01:00.000Z'), at('2024-01-01T00:10:00.000Z'), 4);
    expect(slots).toHaveLength(4);
    expect(more).toBe(true);
    expect(slotsFrom(minutely, at('2024-01-01T00:01:00.000Z'), at('2024-01-01T00:04:00.000Z'), 4).more).toBe(false);
  });

  it('caps a long outage of a one-minute job at a week of slots', () => {
    const minutely = { kind: 'recurring', schedule: { every_n_minutes: 1 }, scheduleAnchor: ANCHOR };
    const { slots, more } = slotsFrom(minutely, at('2024-01-01T00:01:00.000Z'), at('2024-02-01T00:00:00.000Z'));
    expect(slots).toHaveLength(MAX_WINDOW_SLOTS);
    expect(more).toBe(true);
  });
});

describe('jitterOffsetMs', () => {
  it('is 0 without jitter, whatever the random draw', () => {
    expect(jitterOffsetMs(0, () => 0.99)).toBe(0);
  });

  it('stays within [0, jitter_seconds] at both ends of the random range', () => {
    expect(jitterOffsetMs(30, () => 0)).toBe(0);
    expect(jitterOffsetMs(30, () => 0.999_999_999)).toBe(30_000);
    expect(jitterOffsetMs(3600, () => 0.5)).toBe(1_800_000);
  });

  it('spreads draws over the whole range in whole milliseconds', () => {
    const offsets = Array.from({ length: 2000 }, () => jitterOffsetMs(10, Math.random));
    expect(offsets.every((o) => Number.isInteger(o) && o >= 0 && o <= 10_000)).toBe(true);
    expect(Math.min(...offsets)).toBeLessThan(1_000);
    expect(Math.max(...offsets)).toBeGreaterThan(9_000);
  });
});

describe('isMissedWindow', () => {
  const slot = at('2024-01-01T00:10:00.000Z');

  it('is not a window for a slot found up to the late threshold after its due time', () => {
    expect(isMissedWindow([slot], slot, at('2024-01-01T00:11:00.000Z'), 60_000)).toBe(false);
  });

  it('is a window for one slot found later than that', () => {
    expect(isMissedWindow([slot], slot, at('2024-01-01T00:11:00.001Z'), 60_000)).toBe(true);
  });

  it('judges lateness from the due time, jitter included', () => {
    expect(isMissedWindow([slot], at('2024-01-01T00:10:30.000Z'), at('2024-01-01T00:11:20.000Z'), 60_000)).toBe(false);
  });

  it('is a window as soon as a second slot has passed, whatever the threshold', () => {
    expect(isMissedWindow([slot, at('2024-01-01T00:20:00.000Z')], slot, at('2024-01-01T00:20:01.000Z'), 3_600_000)).toBe(true);
  });

  it('is no window when nothing has passed', () => {
    expect(isMissedWindow([], slot, at('2024-01-01T00:09:58.000Z'), 60_000)).toBe(false);
  });
});
