// The harness's side of the target process (bench/target/server.ts).
import type { Arrival } from '../lib/lag.js';
import { spawnTsx, type Managed } from './processes.js';

export interface Target {
  url: string;
  process: Managed;
  reset(): Promise<void>;
  stats(): Promise<{ total: number; distinct: number; withoutId: number }>;
  arrivals(): Promise<Arrival[]>;
}

export async function startTarget(): Promise<Target> {
  const p = spawnTsx('target', 'bench/target/server.ts', {});
  const [, port] = await p.waitForLine(/^LISTENING (\d+)$/, 30_000);
  const url = `http://127.0.0.1:${port}`;
  const call = async <T>(path: string, method = 'GET'): Promise<T> => {
    const res = await fetch(`${url}${path}`, { method });
    if (!res.ok) throw new Error(`target ${path} answered ${res.status}`);
    return (await res.json()) as T;
  };
  return {
    url,
    process: p,
    async reset() {
      await call('/__bench/reset', 'POST');
    },
    stats: () => call('/__bench/stats'),
    async arrivals() {
      const out: Arrival[] = [];
      let from = 0;
      for (;;) {
        const page = await call<{ arrivals: [string, number][]; next: number; total: number }>(`/__bench/arrivals?from=${from}`);
        for (const [executionId, at] of page.arrivals) out.push({ executionId, at });
        from = page.next;
        if (from >= page.total) return out;
      }
    },
  };
}
