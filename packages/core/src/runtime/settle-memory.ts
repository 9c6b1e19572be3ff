import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * How long after start-up a process collects its garbage once. Start-up (loading modules,
 * migrating, the first queries) allocates fast: V8 grows the young generation to its largest
 * (32 MB with V8's default) and leaves the old generation holding start-up's garbage. V8 gives
 * both back only at its next collection made while the process allocates little, and an idle
 * process allocates so little that this next collection comes minutes later. The collection
 * made here, once the allocation of the last seconds is low, shrinks the young generation and
 * frees start-up's pages at once (docs/BENCHMARKS.md, "Idle memory"). Under load V8 grows the
 * young generation again as it would have: the public path's speed is unchanged.
 */
const SETTLE_AFTER_MS = 8_000;

/** One full collection, through V8's gc extension made visible for this call only. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  try {
    (runInNewContext('gc') as () => void)();
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/** Collects once, `delayMs` from now; the timer keeps no process alive. */
export function settleMemory(delayMs = SETTLE_AFTER_MS): void {
  setTimeout(collectGarbage, delayMs).unref();
}
