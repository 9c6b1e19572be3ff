// Parsers for what the footprint scenario reads from /proc and Redis, and the arithmetic on it.

/** utime + stime, in clock ticks, from the text of /proc/<pid>/stat. */
export function parseCpuTicks(statText: string): number {
  // The command name (field 2) is in parentheses and may itself hold spaces or ')': fields are
  // counted from the last ')'. After it come state (3), ..., utime (14) and stime (15).
  const close = statText.lastIndexOf(')');
  if (close < 0) throw new Error('not a /proc/<pid>/stat line');
  const fields = statText.slice(close + 2).trim().split(/\s+/);
  const utime = Number(fields[14 - 3]);
  const stime = Number(fields[15 - 3]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error('no utime/stime in /proc/<pid>/stat');
  return utime + stime;
}

/** Resident set size in bytes from the text of /proc/<pid>/status; null if the line is missing. */
export function parseVmRssBytes(statusText: string): number | null {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(statusText);
  return match ? Number(match[1]) * 1024 : null;
}

/**
 * A field of /proc/<pid>/status in bytes (`VmRSS`, `RssAnon`, `RssFile`, ...); null if the
 * line is missing. RssAnon is the memory the process allocated itself; RssFile the pages of
 * files it maps (the node binary and its libraries), which processes running the same binary share.
 */
export function parseStatusBytes(statusText: string, field: string): number | null {
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(statusText);
  return match ? Number(match[1]) * 1024 : null;
}

/** Share of one core used over a window: 100 means one core fully busy. */
export function cpuPercentOfCore(ticks: number, clockTicksPerSecond: number, windowMs: number): number | null {
  if (!(windowMs > 0) || !(clockTicksPerSecond > 0) || ticks < 0) return null;
  return (ticks / clockTicksPerSecond / (windowMs / 1000)) * 100;
}

/** `INFO` output as a map of field to value. */
export function parseRedisInfo(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (!line || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon > 0) out[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return out;
}

/**
 * Bytes per item from a before/after pair. Null when there are no items (a per-item figure
 * of an empty set means nothing); a negative delta is kept, it says memory was freed meanwhile.
 */
export function perItem(before: number, after: number, items: number): number | null {
  if (!(items > 0) || !Number.isFinite(before) || !Number.isFinite(after)) return null;
  return (after - before) / items;
}
