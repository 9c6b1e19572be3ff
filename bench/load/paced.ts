// An open-loop load at a constant arrival rate, the way "p99 at 500 requests/s" is meant:
// request i is due at start + i / rate, whatever happened to the ones before it, and its
// latency runs from that due moment (not from when a free connection sent it) to the end of its
// answer, so a stalled server is charged for every request that queued behind the stall
// (no coordinated omission). autocannon's own rate limit cannot do this: each connection sends
// its quota for the second back to back as the second starts, so the server sees bursts of
// `connections` simultaneous requests, and its correction assumes one request per ms.
import http from 'node:http';
import type { LoadResult } from '../lib/load.js';
import { summarize } from '../lib/stats.js';

export interface PacedRun {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Requests per second. */
  rate: number;
  durationSeconds: number;
  /** Keep-alive connections shared by the requests; a request waits for a free one. */
  connections: number;
  /** The URL of request i when they differ (run-now on a different job each time); `url` otherwise. */
  urlFor?: (i: number) => string;
  timeoutSeconds?: number;
}

export async function runPaced(run: PacedRun): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: run.connections });
  const total = Math.round(run.rate * run.durationSeconds);
  const latencies: number[] = [];
  const codes = new Map<number, number>();
  let errors = 0;
  let timeouts = 0;
  const pending: Promise<void>[] = [];
  const start = performance.now() + 50;

  const send = (dueAt: number, i: number) =>
    new Promise<void>((resolve) => {
      const req = http.request(run.urlFor ? run.urlFor(i) : run.url, { method: run.method, headers: run.headers, agent, timeout: (run.timeoutSeconds ?? 10) * 1000 }, (res) => {
        res.resume();
        res.on('end', () => {
          codes.set(res.statusCode ?? 0, (codes.get(res.statusCode ?? 0) ?? 0) + 1);
          latencies.push(performance.now() - dueAt);
          resolve();
        });
      });
      let timedOut = false;
      req.on('timeout', () => {
        timedOut = true;
        timeouts += 1;
        req.destroy();
      });
      req.on('error', () => {
        if (!timedOut) errors += 1;
        resolve();
      });
      req.end(run.body);
    });

  // Timers fire late by a ms or so; each wake-up sends every request that has come due.
  await new Promise<void>((done) => {
    let next = 0;
    const tick = () => {
      const now = performance.now();
      while (next < total && start + (next * 1000) / run.rate <= now) {
        pending.push(send(start + (next * 1000) / run.rate, next));
        next += 1;
      }
      if (next >= total) return done();
      setTimeout(tick, Math.max(0, start + (next * 1000) / run.rate - performance.now()));
    };
    setTimeout(tick, 50);
  });
  await Promise.all(pending);
  agent.destroy();
  const durationSeconds = (performance.now() - start) / 1000;
  const s = summarize(latencies.map((l) => Math.max(0, l)));
  const non2xx = [...codes].filter(([code]) => code < 200 || code > 299).reduce((n, [, c]) => n + c, 0);
  return {
    requests: { average: latencies.length / durationSeconds, total: latencies.length },
    latency: { p50: s?.p50 ?? 0, p99: s?.p99 ?? 0, max: s?.max ?? 0, average: s?.mean ?? 0 },
    duration: durationSeconds,
    errors,
    timeouts,
    non2xx,
    statusCodeStats: Object.fromEntries([...codes].map(([code, count]) => [String(code), { count }])),
  };
}
