// The api scenario's load generator, in its own process so it does not share a CPU slice or an
// event loop with the harness. Reads the runs from LOAD_SPEC (JSON), runs them one after the
// other (each after a short unmeasured warm-up), with autocannon, or paced at a constant arrival
// rate (paced.ts), and prints "RESULTS <json>".
import autocannon from 'autocannon';
import { loadResultOf, type LoadResult } from '../lib/load.js';
import { runPaced } from './paced.js';

export interface LoadRun {
  name: string;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  connections: number;
  durationSeconds: number;
  /** Requests per second over all connections; unset runs flat out. */
  overallRate?: number;
  /** With overallRate: requests due at an even pace (open loop) instead of autocannon's per-second bursts. */
  paced?: boolean;
  /** Paced runs only: request i goes to urls[i % urls.length] (the same call on many objects). */
  urls?: string[];
  warmupSeconds: number;
}

async function once(run: LoadRun, durationSeconds: number): Promise<LoadResult> {
  if (run.paced && run.overallRate) {
    const urls = run.urls;
    const urlFor = urls && urls.length > 0 ? (i: number) => urls[i % urls.length] : undefined;
    return runPaced({ url: run.url, urlFor, method: run.method, headers: run.headers, body: run.body, rate: run.overallRate, durationSeconds, connections: run.connections });
  }
  const r = await autocannon({
    url: run.url,
    method: run.method,
    headers: run.headers,
    body: run.body,
    connections: run.connections,
    duration: durationSeconds,
    ...(run.overallRate ? { overallRate: run.overallRate } : {}),
    timeout: 10,
  });
  return loadResultOf(r);
}

const runs = JSON.parse(process.env.LOAD_SPEC ?? '[]') as LoadRun[];
const results: { name: string; result: LoadResult }[] = [];
for (const run of runs) {
  if (run.warmupSeconds > 0) await once(run, run.warmupSeconds);
  results.push({ name: run.name, result: await once(run, run.durationSeconds) });
}
process.stdout.write(`RESULTS ${JSON.stringify(results)}\n`);
