const UNITS: [number, string][] = [
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'm'],
  [1000, 's'],
];

/** "3m ago", "in 2h", "just now"; the largest whole unit, rounded down. */
export function relativeTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '-';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const delta = at - now;
  const size = Math.abs(delta);
  if (size < 1000) return 'just now';
  const [ms, unit] = UNITS.find(([ms]) => size >= ms)!;
  const amount = `${Math.floor(size / ms)}${unit}`;
  return delta < 0 ? `${amount} ago` : `in ${amount}`;
}

/** 850 ms, 12.3 s, 4m 05s. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m ${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}s`;
}
