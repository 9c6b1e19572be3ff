import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * How long after start-up a process collects its garbage once. Start-up (loading modules,
 * migrating, the first queries) leaves the old generation holding its garbage, and V8 does not
 * collect it while the process idles: its memory reducer judges the allocation rate from the
 * last collection's samples, those of the start-up burst, and keeps waiting ("high alloc") as
 * long as nothing allocates. The collection made here frees those pages at once
 * (docs/BENCHMARKS.md, "Idle memory"). It does not shrink the young generation (V8 does that only
 * in a collection made to reduce memory), and the public path's speed is unchanged.
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
