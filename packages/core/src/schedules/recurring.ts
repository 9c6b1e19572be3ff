/**
 * Recurring jobs fire on a fixed grid anchor + k * N minutes, k >= 1 (docs/JOBS.md, "Schedules"), so a
 * late run never shifts the ones after it. Returns the first grid point strictly after `after`.
 */
export function nextRecurringFire(anchor: Date, everyNMinutes: number, after: Date): Date {
  const period = everyNMinutes * 60_000;
  const k = Math.max(1, Math.floor((after.getTime() - anchor.getTime()) / period) + 1);
  return new Date(anchor.getTime() + k * period);
}
