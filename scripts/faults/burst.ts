import { aScheduledJob, type TargetServer } from '@cronsvc/core/testing';

// A burst: many scheduled jobs due at the same moment, created through the API, each calling its
// own path of the target, so that a call lost or made twice shows by name.

export interface Burst {
  /** Target paths, one per job. */
  paths: string[];
  dueAt: number;
}

/** Sends `count` requests through `send`, `concurrency` at a time; answers their statuses in order. */
export async function inParallel<T>(count: number, concurrency: number, send: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      for (let i = next++; i < count; i = next++) results[i] = await send(i);
    }),
  );
  return results;
}

/** Creates a scheduled job due at each of `dueAts` (ms since the epoch), the n-th calling `${target.url}/${tag}-<n>`; answers their paths. */
export async function createScheduledJobs(api: string, token: string, target: TargetServer, tag: string, dueAts: number[]): Promise<string[]> {
  const paths = dueAts.map((_, i) => `/${tag}-${i}`);
  const statuses = await inParallel(dueAts.length, 32, async (i) => {
    const res = await fetch(`${api}/v1/jobs`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(aScheduledJob({ name: `${tag}-${i}`, request: { url: `${target.url}${paths[i]}` }, schedule: { run_at: new Date(dueAts[i]).toISOString() } })),
    });
    await res.arrayBuffer();
    return res.status;
  });
  const refused = statuses.filter((s) => s !== 201);
  if (refused.length > 0) throw new Error(`${refused.length} scheduled jobs not created (statuses ${[...new Set(refused)].join(', ')})`);
  return paths;
}

/** Creates `count` scheduled jobs due at `dueAt`, each calling `${target.url}/${tag}-<n>`. */
export async function createBurst(api: string, token: string, target: TargetServer, tag: string, count: number, dueAt: number): Promise<Burst> {
  const paths = await createScheduledJobs(api, token, target, tag, Array.from({ length: count }, () => dueAt));
  return { paths, dueAt };
}

/** How many times each path of the burst was called. */
export function callsByPath(target: TargetServer, burst: Burst): Map<string, number> {
  const calls = new Map(burst.paths.map((p) => [p, 0]));
  for (const r of target.received) if (calls.has(r.url)) calls.set(r.url, calls.get(r.url)! + 1);
  return calls;
}

/** The burst's calls that arrived, their lateness (ms after the due time) at the 50th, 99th percentile and the worst. */
export function lagOf(target: TargetServer, burst: Burst): { p50: number; p99: number; max: number } {
  const paths = new Set(burst.paths);
  const lags = target.received
    .filter((r) => paths.has(r.url))
    .map((r) => r.at - burst.dueAt)
    .sort((a, b) => a - b);
  const at = (q: number) => lags[Math.max(0, Math.ceil(q * lags.length) - 1)] ?? Infinity;
  return { p50: at(0.5), p99: at(0.99), max: lags[lags.length - 1] ?? Infinity };
}

/** Resolves at `time` (ms since the epoch). */
export function until(time: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, time - Date.now())));
}
