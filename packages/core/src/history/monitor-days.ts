import type { StatusDayState, StatusPageItem } from '@cronsvc/contracts';

/**
 * A monitor's bars on a status page (docs/MONITORS.md, "State history"), from its time up and down
 * per UTC day. The days hold the stretches that ended (written when the state changed); the
 * current state's stretch, from `since` to now, is added here. Pure: the arithmetic is
 * unit-tested.
 */

const DAY_MS = 86_400_000;

/** Time up and down on one UTC day, in ms. */
export interface UpDown {
  upMs: number;
  downMs: number;
}

/** The ms of [fromMs, toMs) that fall on each UTC day it touches, keyed by date (YYYY-MM-DD). */
export function splitByDay(fromMs: number, toMs: number): Map<string, number> {
  const out = new Map<string, number>();
  for (let day = Math.floor(fromMs / DAY_MS) * DAY_MS; day < toMs; day += DAY_MS) {
    const ms = Math.min(toMs, day + DAY_MS) - Math.max(fromMs, day);
    if (ms > 0) out.set(new Date(day).toISOString().slice(0, 10), ms);
  }
  return out;
}

/**
 * The bars of `dates` (oldest first, today last) and the uptime over them: a day is `down` when
 * the monitor was down at any time of it, `up` when it was up and never down, `none` when it was
 * neither (new, paused, or not there yet). Uptime is the time up over the time up or down; null
 * when there was neither.
 */
export function monitorDays(
  dates: readonly string[],
  perDay: ReadonlyMap<string, UpDown>,
  current: { state: string; since: Date },
  now: Date,
): { days: StatusPageItem['days']; uptime: number | null } {
  const days = new Map<string, UpDown>();
  for (const [date, d] of perDay) days.set(date, { ...d });
  if (current.state === 'up' || current.state === 'down') {
    const windowStart = Date.parse(`${dates[0]}T00:00:00.000Z`);
    for (const [date, ms] of splitByDay(Math.max(current.since.getTime(), windowStart), now.getTime())) {
      const d = days.get(date) ?? { upMs: 0, downMs: 0 };
      if (current.state === 'up') d.upMs += ms;
      else d.downMs += ms;
      days.set(date, d);
    }
  }
  let up = 0;
  let down = 0;
  const bars = dates.map((date) => {
    const d = days.get(date);
    if (!d) return { date, state: 'none' as StatusDayState };
    up += d.upMs;
    down += d.downMs;
    return { date, state: (d.downMs > 0 ? 'down' : d.upMs > 0 ? 'up' : 'none') as StatusDayState };
  });
  return { days: bars, uptime: up + down === 0 ? null : up / (up + down) };
}
