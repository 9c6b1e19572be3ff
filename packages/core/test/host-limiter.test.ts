import { HostGate } from '../src/hosts/host-gate.js';
import { postgresHostLimiter, redisHostLimiter, type HostLimiter } from '../src/hosts/host-limiter.js';
import { createRedis } from '../src/runtime/redis.js';
import { capturingLogger } from './capturing-logger.js';
import { openDatabaseStores } from './database-stores.js';
import { aHostLimit, useWorkspace } from './factories.js';

// The shared limiter of host budgets (docs/JOBS.md, "Host budgets and Retry-After") under the load
// of three executors whose requests all wait for one host at once: each executor a gate of its own
// over its own connections, as many requests per executor as the multi-executor test sends. What
// is counted is when each request was let go, by this process's clock, in whole seconds.
const w = useWorkspace();

const HOST = 'api.example.com';
const EXECUTORS = 3;
const REQUESTS = 60;
const RATE = 20;

type Store = { limiter: HostLimiter; close(): Promise<unknown> };

function openStore(backend: 'postgres' | 'redis'): Store {
  if (backend === 'postgres') {
    // The multi-executor test's pool size.
    const stores = openDatabaseStores(w.ctx.database.url, { max: 4 });
    return { limiter: postgresHostLimiter(stores.pool), close: () => stores.close() };
  }
  const redis = createRedis(w.ctx.config, 'producer');
  return { limiter: redisHostLimiter(redis, w.ctx.config.redisPrefix), close: () => redis.quit() };
}

/** Counts the limiter's takes, to see what the waiting requests cost the store. */
function counted(limiter: HostLimiter, counter: { takes: number }): HostLimiter {
  return { take: (request) => ((counter.takes += 1), limiter.take(request)) };
}

/** One request as an executor runs it: through the gate, and after a deferral through it again at the time it names. */
async function requestThrough(gate: HostGate, workspaceId: string): Promise<number> {
  for (;;) {
    const pass = await gate.pass(workspaceId, HOST, 30_000);
    if ('go' in pass) {
      pass.release();
      return Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, pass.deferred.getTime() - Date.now())));
  }
}

describe.each(['postgres', 'redis'] as const)('the host limiter in %s', (backend) => {
  it('keeps the next start for a request that may wait for it, and answers a wait, keeping nothing, to one that may not', async () => {
    const store = openStore(backend);
    try {
      const request = { workspaceId: w.workspaceId, host: `keep-${backend}.example.com`, maxConcurrency: 3, maxPerSecond: 2, holdMs: 30_000, maxWaitMs: 1_000 };
      // When each start is, by this process's clock: the answer's arrival plus the wait it names.
      const startOf = async (maxWaitMs: number) => {
        const answer = await store.limiter.take({ ...request, maxWaitMs });
        return answer.answer === 'taken' ? { start: Date.now() + answer.startInMs, startInMs: answer.startInMs } : answer;
      };
      const first = await startOf(1_000);
      const second = await startOf(1_000);
      expect(first).toMatchObject({ startInMs: 0 });
      // One interval (500 ms) later, less the time the second take took to come.
      expect(second).toMatchObject({ startInMs: expect.any(Number) });
      expect((second as { startInMs: number }).startInMs).toBeGreaterThan(0);
      expect(await startOf(10)).toMatchObject({ answer: { waitMs: expect.any(Number) } });
      // Nothing was kept for the request that could not wait: the next start is one interval on, not two.
      const third = await startOf(1_000);
      const gap = (third as { start: number }).start - (second as { start: number }).start;
      expect(gap).toBeGreaterThanOrEqual(250);
      expect(gap).toBeLessThan(750);
      // A kept start holds its place of max_concurrency: three are out.
      expect(await store.limiter.take(request)).toEqual({ answer: 'full' });
    } finally {
      await store.close();
    }
  });

  it(`lets no second hold more than ${RATE} + 1 requests of ${EXECUTORS} executors waiting together, and keeps close to ${RATE} a second`, async () => {
    await aHostLimit(w.ctx.runtime, w.workspaceId, HOST, { max_per_second: RATE });
    const stores = Array.from({ length: EXECUTORS }, () => openStore(backend));
    const { logger, lines } = capturingLogger();
    const counter = { takes: 0 };
    try {
      const gates = stores.map((s) => new HostGate({ pool: w.ctx.runtime.pool, limiter: counted(s.limiter, counter), logger }));
      const starts = await Promise.all(Array.from({ length: REQUESTS }, (_, i) => requestThrough(gates[i % EXECUTORS], w.workspaceId)));

      const perSecond = new Map<number, number>();
      for (const at of starts) perSecond.set(Math.floor(at / 1000), (perSecond.get(Math.floor(at / 1000)) ?? 0) + 1);
      const seconds = [...perSecond.entries()].sort(([a], [b]) => a - b).map(([, n]) => n);
      expect({ over: seconds.filter((n) => n > RATE + 1), seconds }).toEqual({ over: [], seconds });
      // Close to the rate: sixty requests at twenty a second take about three seconds, not much more.
      const span = Math.max(...starts) - Math.min(...starts);
      expect(span).toBeGreaterThanOrEqual(((REQUESTS - RATE - 1) / RATE) * 1000);
      expect(span).toBeLessThanOrEqual((REQUESTS / RATE) * 1000 + 1_500);
      // The limiter answered throughout: no request went without its budget.
      expect(lines.filter((line) => line.includes('host limiter unavailable'))).toEqual([]);
      // Waiting requests do not ask the store over and over: a few takes per request at most.
      expect(counter.takes).toBeLessThanOrEqual(REQUESTS * 4);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  }, 60_000);
});
