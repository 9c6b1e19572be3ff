// The load processes (bench/load/load.ts, bench/load/e2e.ts): each prints one RESULTS line with
// what it measured, then is stopped, also when it never prints it.
import type { LoadResult } from '../lib/load.js';
import type { LoadRun } from '../load/load.js';
import { spawnTsx, type Managed } from './processes.js';

/** Starts bench/load/load.ts on `runs`; read its figures with `resultsOf`. */
export function loadProcess(name: string, runs: LoadRun[]): Managed {
  return spawnTsx(name, 'bench/load/load.ts', { LOAD_SPEC: JSON.stringify(runs) });
}

/** What a load process printed on its RESULTS line; stops it either way. */
export async function resultsOf<T = { name: string; result: LoadResult }[]>(loader: Managed, timeoutMs: number): Promise<T> {
  try {
    const [, json] = await loader.waitForLine(/^RESULTS (.*)$/, timeoutMs);
    return JSON.parse(json) as T;
  } finally {
    await loader.stop();
  }
}

/** Runs bench/load/load.ts on `runs` to completion. */
export function runLoad(name: string, runs: LoadRun[], timeoutMs: number): Promise<{ name: string; result: LoadResult }[]> {
  return resultsOf(loadProcess(name, runs), timeoutMs);
}
