// The public-path load process (bench/load/e2e.ts), run to completion for one spec.
import type { ClosedSpec, PacedSpec } from '../load/e2e.js';
import { resultsOf } from './load-process.js';
import { spawnTsx } from './processes.js';

/** Runs bench/load/e2e.ts with `spec` and returns what it printed on its RESULTS line. */
export async function runE2eLoad<T>(spec: ClosedSpec | PacedSpec, timeoutMs: number): Promise<T> {
  return resultsOf<T>(spawnTsx('e2e-load', 'bench/load/e2e.ts', { E2E_SPEC: JSON.stringify(spec) }), timeoutMs);
}
